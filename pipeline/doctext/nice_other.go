//go:build !linux

package doctext

import "syscall"

// lowerPriority runs the child at ChildNice: here a nice value is the
// whole process's. When it cannot, the child goes on at the server's
// priority.
func lowerPriority() {
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, 0, ChildNice)
}

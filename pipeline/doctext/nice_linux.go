package doctext

import (
	"os"
	"runtime"
	"syscall"
)

// lowerPriority runs the child at ChildNice. A nice value is a thread's,
// and the runtime has started threads already: the thread that lowers its
// own executes the program again, which then starts with that thread
// alone, and every thread it starts inherits the priority. When it cannot,
// the child goes on at the server's priority.
func lowerPriority() {
	if os.Getenv(nicedEnv) == "1" {
		return
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	exe, err := os.Executable()
	if err != nil || syscall.Setpriority(syscall.PRIO_PROCESS, 0, ChildNice) != nil {
		return
	}
	_ = syscall.Exec(exe, os.Args, append(os.Environ(), nicedEnv+"=1"))
}

// Command webhookreceiver receives the server's webhook deliveries and
// prints each one whose Standard Webhooks signature holds: the
// webhook-signature header is "v1," and the base64 HMAC-SHA256, keyed with
// the secret's base64 after "whsec_", of "webhook-id.webhook-timestamp.body".
// It uses the standard library only, so it can be copied as it stands.
//
//	WEBHOOK_SECRET=whsec_… go run ./examples/webhookreceiver
//
// RECEIVER_ADDR sets where it listens (default 127.0.0.1:9000, path /hook).
// receiver.py beside it does the same in Python 3.9 or later.
package main

import (
	"cmp"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() {
	key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(os.Getenv("WEBHOOK_SECRET"), "whsec_"))
	http.HandleFunc("/hook", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		id, ts := r.Header.Get("webhook-id"), r.Header.Get("webhook-timestamp")
		sent, err := strconv.ParseInt(ts, 10, 64)
		mac := hmac.New(sha256.New, key)
		fmt.Fprintf(mac, "%s.%s.%s", id, ts, body)
		want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
		for _, sig := range strings.Fields(r.Header.Get("webhook-signature")) {
			if err == nil && time.Since(time.Unix(sent, 0)).Abs() < 5*time.Minute && hmac.Equal([]byte(sig), []byte(want)) {
				fmt.Printf("verified %s: %s\n", id, body) // skip an id already handled
				return
			}
		}
		http.Error(w, "bad signature", http.StatusUnauthorized)
	})
	panic(http.ListenAndServe(cmp.Or(os.Getenv("RECEIVER_ADDR"), "127.0.0.1:9000"), nil))
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"syscall"
	"time"
)

// writer adds notes one after another, each with its own idempotency key,
// sending each request to the other replica than the one before.
type writer struct {
	n      int
	client *http.Client
	o      options
	w      world
	rec    *recorder
	giveUp context.Context
	sent   int
}

// run writes notes until ctx ends; the note under way when it ends is
// still seen through.
func (wr *writer) run(ctx context.Context) {
	run := os.Getpid()
	for i := 0; ctx.Err() == nil; i++ {
		key := fmt.Sprintf("failover-%d-w%d-%d", run, wr.n, i)
		wr.note(key, wr.w.candidates[(wr.n+i)%len(wr.w.candidates)])
		select {
		case <-ctx.Done():
		case <-time.After(wr.o.pause):
		}
	}
}

// note posts one note with its key until it is acknowledged, retrying the
// same key after a 503, a 409 (the key's first request still running), a
// 5xx or a failed connection; any other answer, or giveUp's end, abandons
// it.
func (wr *writer) note(key string, candidate int64) {
	body, _ := json.Marshal(map[string]string{"content": noteContent(key)})
	path := fmt.Sprintf("/api/v1/jobs/%d/candidates/%d/notes", wr.w.job, candidate)
	for {
		api := wr.o.apis[wr.sent%len(wr.o.apis)]
		wr.sent++
		began := time.Now()
		r := wr.post(api+path, key, body)
		wr.rec.sawWrite(r.kind, r.at.Sub(began))
		if r.id != 0 {
			wr.rec.acked(ack{key: key, id: r.id, at: r.at, replay: r.replay})
			return
		}
		if !r.retry {
			wr.rec.abandon(key)
			return
		}
		select {
		case <-wr.giveUp.Done():
			wr.rec.abandon(key)
			return
		case <-time.After(wr.o.retryDelay):
		}
	}
}

// noteContent names the key inside the note, so that the database shows
// which key wrote which note.
func noteContent(key string) string { return "failover note " + key }

// response is what a writer made of one request.
type response struct {
	kind   string // for the tally: "201", "503 unavailable (Retry-After: 2)"…
	id     int64  // the note's id when acknowledged
	replay bool
	retry  bool
	at     time.Time
}

func (wr *writer) post(url, key string, body []byte) response {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return response{kind: err.Error(), at: time.Now()}
	}
	req.Header.Set("Authorization", "Bearer "+wr.w.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	resp, err := wr.client.Do(req)
	if err != nil {
		return response{kind: connectionError(err), retry: true, at: time.Now()}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	at := time.Now()
	if err != nil {
		return response{kind: connectionError(err), retry: true, at: at}
	}
	replay := resp.Header.Get("Idempotent-Replay") == "true"
	if resp.StatusCode == http.StatusCreated || resp.StatusCode == http.StatusOK {
		var note struct {
			Data struct {
				ID int64 `json:"id"`
			} `json:"data"`
		}
		if json.Unmarshal(b, &note) == nil && note.Data.ID != 0 {
			kind := fmt.Sprint(resp.StatusCode)
			if replay {
				kind += " (replay)"
			}
			return response{kind: kind, id: note.Data.ID, replay: replay, at: at}
		}
	}
	retry := resp.StatusCode == http.StatusConflict || resp.StatusCode >= 500
	return response{kind: errorKind(resp, b), retry: retry, at: at}
}

// errorKind names a response that is not an acknowledgment: its status,
// its error code and its Retry-After.
func errorKind(resp *http.Response, body []byte) string {
	var env struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	kind := fmt.Sprint(resp.StatusCode)
	if json.Unmarshal(body, &env) == nil && env.Error.Code != "" {
		kind += " " + env.Error.Code
	}
	if ra := resp.Header.Get("Retry-After"); ra != "" {
		kind += " (Retry-After: " + ra + ")"
	}
	return kind
}

// connectionError names a request that got no answer.
func connectionError(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed"
	case errors.As(err, &ne) && ne.Timeout():
		return "client timeout"
	}
	return "connection error"
}

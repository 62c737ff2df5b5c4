package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// feedReader follows GET /api/v1/activity by its links.next, asking the two
// replicas in turn, and counts each entry and each note it shows.
type feedReader struct {
	client *http.Client
	o      options
	token  string
	rec    *recorder

	mu      sync.Mutex
	entries map[int64]int // entry id → times seen
	notes   map[int64]int // note id (of candidate.note_added) → times seen
	pages   int
}

func newFeedReader(client *http.Client, o options, token string, rec *recorder) *feedReader {
	return &feedReader{client: client, o: o, token: token, rec: rec,
		entries: map[int64]int{}, notes: map[int64]int{}}
}

// feedPage is what the reader reads of a page.
type feedPage struct {
	Data []struct {
		ID      int64  `json:"id"`
		Action  string `json:"action"`
		Changes struct {
			NoteID int64 `json:"note_id"`
		} `json:"changes"`
	} `json:"data"`
	Links struct {
		Next string `json:"next"`
	} `json:"links"`
}

// run reads pages until ctx ends, pausing on an empty page and after a
// failed read (then asking the same page again).
func (f *feedReader) run(ctx context.Context) {
	next := f.o.apis[0] + "/api/v1/activity?limit=100"
	for turn := 1; ctx.Err() == nil; turn++ {
		began := time.Now()
		page, kind := f.get(ctx, onReplica(next, f.o.apis[turn%len(f.o.apis)]))
		if ctx.Err() != nil {
			return
		}
		f.rec.sawRead(kind, time.Since(began))
		wait := f.o.retryDelay
		if page != nil {
			f.take(page)
			if page.Links.Next != "" {
				next = page.Links.Next
			}
			if len(page.Data) > 0 {
				wait = 0
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
}

// onReplica points a link at another replica: a cursor is the feed's, not
// the server's.
func onReplica(link, api string) string {
	u, err := url.Parse(link)
	base, err2 := url.Parse(api)
	if err != nil || err2 != nil {
		return link
	}
	u.Scheme, u.Host = base.Scheme, base.Host
	return u.String()
}

func (f *feedReader) get(ctx context.Context, link string) (*feedPage, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, link, nil)
	if err != nil {
		return nil, err.Error()
	}
	req.Header.Set("Authorization", "Bearer "+f.token)
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, connectionError(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, connectionError(err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, errorKind(resp, b)
	}
	var p feedPage
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Sprintf("200 unreadable: %v", err)
	}
	return &p, "200"
}

func (f *feedReader) take(p *feedPage) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pages++
	for _, e := range p.Data {
		f.entries[e.ID]++
		if e.Action == "candidate.note_added" {
			f.notes[e.Changes.NoteID]++
		}
	}
}

// catchUp waits until the reader has shown every note of ids, or for at
// most bound.
func (f *feedReader) catchUp(ctx context.Context, ids map[int64]bool, bound time.Duration) {
	end := time.Now().Add(bound)
	for ctx.Err() == nil && time.Now().Before(end) {
		if f.seenAll(ids) {
			// One more read, for an entry shown twice after the last.
			time.Sleep(3 * f.o.retryDelay)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (f *feedReader) seenAll(ids map[int64]bool) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for id := range ids {
		if f.notes[id] == 0 {
			return false
		}
	}
	return true
}

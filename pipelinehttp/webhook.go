package pipelinehttp

import (
	"github.com/pipeline-dev/pipeline/pipeline"
)

// webhookItem is a webhook as listed and read: never its secret.
type webhookItem struct {
	ID          int64    `json:"id"`
	URL         string   `json:"url"`
	Events      []string `json:"events"`
	Description string   `json:"description"`
	CreatedAt   string   `json:"created_at"`
	CreatedBy   named    `json:"created_by"`
}

// createdWebhook is a webhook as created, with its secret shown this once.
type createdWebhook struct {
	webhookItem
	Secret string `json:"secret"`
}

func newWebhookItem(w pipeline.Webhook) webhookItem {
	events := w.Events
	if events == nil {
		events = []string{}
	}
	return webhookItem{
		ID: w.ID, URL: w.URL, Events: events, Description: w.Description,
		CreatedAt: timestamp(w.CreatedAt), CreatedBy: named{ID: w.CreatedBy.ID, Name: w.CreatedBy.Name},
	}
}

// deliveryItem is one delivery attempt.
type deliveryItem struct {
	ID            int64   `json:"id"`
	EventID       int64   `json:"event_id"`
	Action        string  `json:"action"`
	Attempt       int     `json:"attempt"`
	StatusCode    *int    `json:"status_code"`
	Error         *string `json:"error"`
	DurationMS    int64   `json:"duration_ms"`
	AttemptedAt   string  `json:"attempted_at"`
	NextAttemptAt *string `json:"next_attempt_at"`
}

func newDeliveryItem(d pipeline.Delivery) deliveryItem {
	it := deliveryItem{
		ID: d.ID, EventID: d.ActivityID, Action: d.Action, Attempt: d.Attempt, StatusCode: d.StatusCode,
		DurationMS: d.Duration.Milliseconds(), AttemptedAt: timestamp(d.AttemptedAt),
	}
	if d.Error != "" {
		it.Error = &d.Error
	}
	if d.NextAttemptAt != nil {
		next := timestamp(*d.NextAttemptAt)
		it.NextAttemptAt = &next
	}
	return it
}

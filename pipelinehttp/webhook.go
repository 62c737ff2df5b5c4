package pipelinehttp

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// deliveryItem is one delivery attempt.
type deliveryItem struct {
	ID int64 `json:"id" schema:"ref: Id"`
	// The id of the activity entry sent (`data.id` of the message).
	EventID int64  `json:"event_id" schema:"ref: Id"`
	Action  string `json:"action" schema:"ref: Action"`
	// 1 for the first attempt of the message, up to 8.
	Attempt int `json:"attempt" schema:"minimum: 1"`
	// The receiver's answer; `null` when none came, or the message was
	// not sent.
	StatusCode *int `json:"status_code"`
	// Why the attempt failed or the message was not sent; `null` when it
	// was delivered.
	Error       *string `json:"error"`
	DurationMS  int64   `json:"duration_ms" schema:"minimum: 0"`
	AttemptedAt string  `json:"attempted_at" schema:"ref: Timestamp"`
	// When the message is tried again; `null` when it will not be
	// (delivered, failed after its last attempt, or not sent).
	NextAttemptAt *string `json:"next_attempt_at" schema:"format: date-time"`
}

func newDeliveryItem(d pipeline.Delivery) deliveryItem {
	it := deliveryItem{
		ID: d.ID, EventID: d.ActivityID, Action: d.Action, Attempt: d.Attempt, StatusCode: d.StatusCode,
		DurationMS: d.Duration.Milliseconds(), AttemptedAt: pipeline.FormatTime(d.AttemptedAt),
	}
	if d.Error != "" {
		it.Error = &d.Error
	}
	if d.NextAttemptAt != nil {
		next := pipeline.FormatTime(*d.NextAttemptAt)
		it.NextAttemptAt = &next
	}
	return it
}

// webhookOperations are the operations on webhook subscriptions and their deliveries, in the order of the
// document.
var webhookOperations = []operation{
	newOperation(opSpec[pipeline.NewWebhook, data[pipeline.CreatedWebhookRecord]]{
		op: pipeline.OpCreateWebhook,
		params: []param[pipeline.NewWebhook]{
			textField("url", true, textSchema(1, 2048, ""), func(in *pipeline.NewWebhook) *string { return &in.URL }),
			listField("events", inBody, &jsonschema.Schema{Type: "array", Items: enumSchema(pipeline.Actions...)}, func(in *pipeline.NewWebhook) *[]string { return &in.Events }),
			textField("description", false, textSchema(0, pipeline.MaxWebhookDescriptionLength, ""), func(in *pipeline.NewWebhook) *string { return &in.Description }),
		},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.NewWebhook]) (data[pipeline.CreatedWebhookRecord], bool, error) {
			res, err := svc.CreateWebhook(ctx, in.domain())
			return data[pipeline.CreatedWebhookRecord]{Data: res.Value.Record()}, res.Replayed, err
		},
		created: func(out data[pipeline.CreatedWebhookRecord]) int64 { return out.Data.ID },
	}),
	newOperation(opSpec[struct{ page int }, list[pipeline.WebhookRecord]]{
		op:     pipeline.OpListWebhooks,
		params: []param[struct{ page int }]{pageParam(pageSchema, func(in *struct{ page int }) *int { return &in.page })},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[struct{ page int }]) (list[pipeline.WebhookRecord], bool, error) {
			l, err := svc.ListWebhooks(ctx, in.value.page)
			return listOf(in.self, nil, l, pipeline.Webhook.Record), false, err
		},
	}),
	newOperation(opSpec[struct{}, data[pipeline.WebhookRecord]]{
		op:     pipeline.OpGetWebhook,
		params: []param[struct{}]{webhookID[struct{}]()},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[struct{}]) (data[pipeline.WebhookRecord], bool, error) {
			w, err := svc.GetWebhook(ctx, in.ref.Webhook)
			return data[pipeline.WebhookRecord]{Data: w.Record()}, false, err
		},
	}),
	newOperation(opSpec[pipeline.WebhookDeletion, struct{}]{
		op:     pipeline.OpDeleteWebhook,
		params: []param[pipeline.WebhookDeletion]{webhookID[pipeline.WebhookDeletion]()},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.WebhookDeletion]) (struct{}, bool, error) {
			res, err := svc.DeleteWebhook(ctx, in.ref.Webhook, in.domain())
			return struct{}{}, res.Replayed, err
		},
	}),
	newOperation(opSpec[struct{ page int }, list[deliveryItem]]{
		op:     pipeline.OpListWebhookDeliveries,
		params: []param[struct{ page int }]{webhookID[struct{ page int }](), pageParam(pageSchema, func(in *struct{ page int }) *int { return &in.page })},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[struct{ page int }]) (list[deliveryItem], bool, error) {
			l, err := svc.ListWebhookDeliveries(ctx, in.ref.Webhook, in.value.page)
			return listOf(in.self, nil, l, newDeliveryItem), false, err
		},
	}),
}

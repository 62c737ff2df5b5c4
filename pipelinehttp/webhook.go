package pipelinehttp

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

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

// webhookRef is the webhook a route's path names.
func webhookRef(c *gin.Context) pipeline.Ref { return pipeline.Ref{Webhook: pathID(c, "webhook")} }

// createWebhook serves POST /webhooks.
func (a *api) createWebhook(c *gin.Context) {
	var in pipeline.NewWebhook
	idem, ok := a.bind(c, pipeline.OpCreateWebhook, pipeline.Ref{}, func() error { return in.Validate() },
		stringField("url", &in.URL),
		valueField("events", "an array of actions", &in.Events),
		stringField("description", &in.Description),
	)
	if !ok {
		return
	}
	in.Idempotency = idem
	res, err := a.svc.CreateWebhook(c.Request.Context(), in)
	if err == nil {
		c.Header("Location", a.basePath+c.FullPath()+"/"+strconv.FormatInt(res.Value.ID, 10))
	}
	answer(c, res, err, func(w pipeline.CreatedWebhook) (int, any) {
		return http.StatusCreated, data[createdWebhook]{Data: createdWebhook{webhookItem: newWebhookItem(w.Webhook), Secret: w.Secret}}
	})
}

// listWebhooks serves GET /webhooks?page=.
func (a *api) listWebhooks(c *gin.Context) {
	q := newQuery(c, "page")
	page := q.page()
	if len(q.bad) > 0 {
		fail(c, a.svc.Reject(c.Request.Context(), pipeline.OpListWebhooks, pipeline.Ref{}, nil, q.bad.Err()))
		return
	}
	l, err := a.svc.ListWebhooks(c.Request.Context(), page)
	if err != nil {
		fail(c, err)
		return
	}
	respond(c, http.StatusOK, newList(a, c, l, newWebhookItem, nil))
}

// webhook serves GET /webhooks/{webhook}.
func (a *api) webhook(c *gin.Context) {
	w, err := a.svc.Webhook(c.Request.Context(), webhookRef(c).Webhook)
	if err != nil {
		fail(c, err)
		return
	}
	respond(c, http.StatusOK, data[webhookItem]{Data: newWebhookItem(w)})
}

// deleteWebhook serves DELETE /webhooks/{webhook}: 204 without a body.
func (a *api) deleteWebhook(c *gin.Context) {
	ref := webhookRef(c)
	idem, ok := a.bind(c, pipeline.OpDeleteWebhook, ref, func() error { return nil })
	if !ok {
		return
	}
	res, err := a.svc.DeleteWebhook(c.Request.Context(), ref.Webhook, idem)
	if err != nil {
		fail(c, err)
		return
	}
	if res.Replayed {
		c.Header(ReplayHeader, "true")
	}
	c.Status(http.StatusNoContent)
	c.Writer.WriteHeaderNow()
}

// webhookDeliveries serves GET /webhooks/{webhook}/deliveries?page=.
func (a *api) webhookDeliveries(c *gin.Context) {
	ref := webhookRef(c)
	q := newQuery(c, "page")
	page := q.page()
	if len(q.bad) > 0 {
		fail(c, a.svc.Reject(c.Request.Context(), pipeline.OpListWebhookDeliveries, ref, nil, q.bad.Err()))
		return
	}
	l, err := a.svc.WebhookDeliveries(c.Request.Context(), ref.Webhook, page)
	if err != nil {
		fail(c, err)
		return
	}
	respond(c, http.StatusOK, newList(a, c, l, newDeliveryItem, nil))
}

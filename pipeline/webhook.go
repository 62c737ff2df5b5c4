package pipeline

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// WebhookSecretPrefix starts every webhook signing secret, as the Standard
// Webhooks specification writes them.
const WebhookSecretPrefix = "whsec_"

// MaxWebhookDescriptionLength is the longest description of a webhook, in
// characters.
const MaxWebhookDescriptionLength = 1000

// Webhook is a team's subscription to its activity: every entry whose
// action it selects is sent to its URL, signed with its secret.
type Webhook struct {
	ID          int64
	TeamID      int64
	URL         string
	Events      []string // the actions it selects; none: every action
	Description string
	CreatedAt   time.Time
	CreatedBy   User // ID and Name
	// SealedSecret is the signing secret encrypted under the server's
	// SecretKey; the secret itself is never stored.
	SealedSecret []byte
}

// Selects reports whether the webhook wants entries of action.
func (w Webhook) Selects(action string) bool {
	return len(w.Events) == 0 || slices.Contains(w.Events, action)
}

// CreatedWebhook is a webhook as created: with its signing secret, shown
// this once (and again only to a replay of the same idempotency key).
type CreatedWebhook struct {
	Webhook
	Secret string `json:"-"` // never part of a stored result
}

// NewWebhook is the input of CreateWebhook.
type NewWebhook struct {
	URL         string       `json:"url"`
	Events      []string     `json:"events,omitempty"` // actions; none: every action
	Description string       `json:"description,omitempty"`
	Idempotency *Idempotency `json:"-"`
	Reasoned
	// Unread is what a face could not read of the input; nil: all of it.
	Unread error `json:"-"`
}

// SetIdempotency sets the key the request named (a face's reading).
func (in *NewWebhook) SetIdempotency(key *Idempotency) { in.Idempotency = key }

// SetUnread sets what a face could not read of the request.
func (in *NewWebhook) SetUnread(err error) { in.Unread = err }

// Validate reports what is wrong with the input without consulting the
// network; the URL's host is checked by CreateWebhook.
func (in NewWebhook) Validate() error { return inputVerdict(in.Unread, in.check().Err()) }

func (in NewWebhook) check() FieldErrors {
	f := FieldErrors{}
	if checkText(f, "url", in.URL) && strings.TrimSpace(in.URL) == "" {
		f.Add("url", "The url field is required.")
	}
	for _, e := range in.Events {
		if !slices.Contains(Actions, e) {
			f.Add("events", "The selected event "+e+" is not an action.")
		}
	}
	if checkText(f, "description", in.Description) && utf8.RuneCountInString(in.Description) > MaxWebhookDescriptionLength {
		f.Add("description", "The description may not be greater than 1000 characters.")
	}
	return f
}

// events returns the input's events without duplicates, in the order of
// Actions.
func (in NewWebhook) events() []string {
	out := []string{}
	for _, a := range Actions {
		if slices.Contains(in.Events, a) {
			out = append(out, a)
		}
	}
	return out
}

// webhookAdmin returns the caller of the webhook operation op (see
// teamAdmin).
func (s *Service) webhookAdmin(ctx context.Context, op Op) (Caller, error) {
	return s.teamAdmin(ctx, op, "Only owners and admins of the team manage its webhooks.")
}

// teamAdmin returns the caller of op, one whose token carries op's scope
// and whose user owns or administers the current team: else
// insufficient_scope, or forbidden with refusal, right after the scope.
func (s *Service) teamAdmin(ctx context.Context, op Op, refusal string) (Caller, error) {
	c, err := authorize(ctx, op)
	if err != nil {
		return Caller{}, err
	}
	role, err := s.store.Members().Role(ctx, MemberParams{UserID: c.user.ID, TeamID: c.team.ID})
	if err != nil {
		return Caller{}, err
	}
	if role != RoleOwner && role != RoleAdmin {
		return Caller{}, &Error{Code: EForbidden, Message: refusal}
	}
	return c, nil
}

// CreateWebhook subscribes a URL to the activity of the caller's current
// team and returns the subscription with its signing secret, shown this
// once. Scope: webhooks:write; the caller's user must own or administer the
// team. Errors: unauthenticated, insufficient_scope, forbidden (not an
// owner or admin; the server has no secret key), validation_failed (url,
// events, description), conflict (idempotency key in flight).
func (s *Service) CreateWebhook(ctx context.Context, in NewWebhook) (Result[CreatedWebhook], error) {
	c, err := s.webhookAdmin(ctx, OpCreateWebhook)
	if err != nil {
		return Result[CreatedWebhook]{}, err
	}
	k, err := takeKey(OpCreateWebhook, Ref{}, &in, &in.Idempotency)
	if err != nil {
		return Result[CreatedWebhook]{}, err
	}
	// The URL's host is resolved before the transaction opens, not while
	// it holds the key's lock (and, on SQLite, the one writer); its replay
	// still comes in the check order, after the key's.
	f := in.check()
	var invalid error
	if checkable(in.Unread, f, "url") {
		invalid = s.webhooks.CheckURL(ctx, in.URL)
		for name, msgs := range Fields(invalid) {
			f[name] = append(f[name], msgs...)
		}
	}
	if Fields(invalid) != nil || invalid == nil {
		invalid = inputVerdict(in.Unread, f.Err())
	}
	res, err := write(s, ctx, c, k, nil, func(tx Tx, _ struct{}) (CreatedWebhook, error) {
		if invalid != nil {
			return CreatedWebhook{}, invalid
		}
		if s.secrets == nil {
			return CreatedWebhook{}, errNoSecretKey()
		}
		secret := newWebhookSecret()
		w, err := tx.Webhooks().Insert(ctx, Webhook{
			TeamID: c.team.ID, URL: in.URL, Events: in.events(), Description: in.Description,
			CreatedAt: s.now(), CreatedBy: User{ID: c.user.ID, Name: c.user.Name},
			SealedSecret: s.secrets.seal([]byte(secret)),
		})
		if err != nil {
			return CreatedWebhook{}, err
		}
		changes := map[string]Change{"url": {After: w.URL}, "events": {After: w.Events}, "description": {After: w.Description}}
		return CreatedWebhook{Webhook: w, Secret: secret}, s.log(ctx, tx, c, w.TeamID, 0, ActionWebhookCreated, SubjectWebhook, w.ID, changes)
	})
	if err == nil && res.Replayed {
		// The stored result holds the sealed secret only.
		if s.secrets == nil {
			return Result[CreatedWebhook]{}, errNoSecretKey()
		}
		plain, openErr := s.secrets.open(res.Value.SealedSecret)
		if openErr != nil {
			return Result[CreatedWebhook]{}, openErr
		}
		res.Value.Secret = string(plain)
	}
	return res, err
}

// errNoSecretKey refuses what needs a webhook's secret on a server
// without a key to keep it with.
func errNoSecretKey() error {
	return Errorf(EForbidden, "Webhooks are disabled: the server has no secret key to keep their secrets with.")
}

// newWebhookSecret is the prefix and the base64 of 32 random bytes.
func newWebhookSecret() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return WebhookSecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// ListWebhooks returns a page of the webhooks of the caller's current team,
// newest first, without their secrets. Scope: webhooks:write; owners and
// admins only. Errors: unauthenticated, insufficient_scope, forbidden,
// validation_failed (page).
func (s *Service) ListWebhooks(ctx context.Context, page int) (List[Webhook], error) {
	c, err := s.webhookAdmin(ctx, OpListWebhooks)
	if err != nil {
		return List[Webhook]{}, err
	}
	if page < 0 {
		return List[Webhook]{}, Invalid("page", msgPage)
	}
	return s.store.Webhooks().List(ctx, ListWebhooksParams{TeamID: c.team.ID, Page: max(page, 1)})
}

// GetWebhook returns one webhook of the caller's current team, without its
// secret. Scope: webhooks:write; owners and admins only. Errors:
// unauthenticated, insufficient_scope, forbidden, not_found (also another
// team's webhook).
func (s *Service) GetWebhook(ctx context.Context, id int64) (Webhook, error) {
	c, err := s.webhookAdmin(ctx, OpGetWebhook)
	if err != nil {
		return Webhook{}, err
	}
	return s.store.Webhooks().Get(ctx, WebhookParams{TeamID: c.team.ID, ID: id})
}

// WebhookDeletion is the input of DeleteWebhook, which takes nothing
// but its key.
type WebhookDeletion struct {
	Idempotency *Idempotency `json:"-"`
	Reasoned
	// Unread is what a face could not read of the input; nil: all of it.
	Unread error `json:"-"`
}

// SetIdempotency sets the key the request named (a face's reading).
func (in *WebhookDeletion) SetIdempotency(key *Idempotency) { in.Idempotency = key }

// SetUnread sets what a face could not read of the request.
func (in *WebhookDeletion) SetUnread(err error) { in.Unread = err }

// DeleteWebhook deletes a webhook of the caller's current team: nothing
// more is sent to it. Scope: webhooks:write; owners and admins only.
// Errors: unauthenticated, insufficient_scope, forbidden, not_found,
// validation_failed (an input that could not be read), conflict
// (idempotency key in flight).
func (s *Service) DeleteWebhook(ctx context.Context, id int64, in WebhookDeletion) (Result[struct{}], error) {
	c, err := s.webhookAdmin(ctx, OpDeleteWebhook)
	if err != nil {
		return Result[struct{}]{}, err
	}
	k, err := takeKey(OpDeleteWebhook, Ref{Webhook: id}, &in, &in.Idempotency)
	if err != nil {
		return Result[struct{}]{}, err
	}
	load := func(tx Tx, _ KeyClaim) (Webhook, error) {
		return tx.Webhooks().Lock(ctx, WebhookParams{TeamID: c.team.ID, ID: id})
	}
	return write(s, ctx, c, k, load, func(tx Tx, w Webhook) (struct{}, error) {
		if in.Unread != nil {
			return struct{}{}, in.Unread
		}
		return struct{}{}, s.deleteWebhook(ctx, tx, c, w, nil)
	})
}

// deleteWebhook deletes a webhook WebhookTx.Lock returned and logs it
// as c's act; reason, if any, says why in the entry's changes.
func (s *Service) deleteWebhook(ctx context.Context, tx Tx, c Caller, w Webhook, reason *string) error {
	if err := tx.Webhooks().Delete(ctx, DeleteWebhookParams{ID: w.ID}); err != nil {
		return err
	}
	changes := map[string]any{"url": Change{Before: w.URL}, "events": Change{Before: w.Events}, "description": Change{Before: w.Description}}
	if reason != nil {
		changes["reason"] = *reason
	}
	return s.log(ctx, tx, c, w.TeamID, 0, ActionWebhookDeleted, SubjectWebhook, w.ID, changes)
}

// ListWebhookDeliveries returns a page of the delivery attempts of a webhook of
// the caller's current team, newest first. Scope: webhooks:write; owners
// and admins only. Errors: unauthenticated, insufficient_scope, forbidden,
// not_found, validation_failed (page).
func (s *Service) ListWebhookDeliveries(ctx context.Context, id int64, page int) (List[Delivery], error) {
	c, err := s.webhookAdmin(ctx, OpListWebhookDeliveries)
	if err != nil {
		return List[Delivery]{}, err
	}
	if page < 0 {
		if _, err := s.store.Webhooks().Get(ctx, WebhookParams{TeamID: c.team.ID, ID: id}); err != nil {
			return List[Delivery]{}, err
		}
		return List[Delivery]{}, Invalid("page", msgPage)
	}
	return s.store.Webhooks().Deliveries(ctx, DeliveriesParams{TeamID: c.team.ID, WebhookID: id, Page: max(page, 1)})
}

// The operations on webhooks.
const (
	OpCreateWebhook         Op = "create_webhook"
	OpListWebhooks          Op = "list_webhooks"
	OpGetWebhook            Op = "get_webhook"
	OpDeleteWebhook         Op = "delete_webhook"
	OpListWebhookDeliveries Op = "list_webhook_deliveries"
)

// webhookPath is the path of one webhook, below /api/v1.
const webhookPath = "/webhooks/{webhook}"

// webhookOps are the rows of opTable for these operations, in the order of
// the API's document.
var webhookOps = []opRow{
	{OpCreateWebhook, opTraits{ScopeWebhooksWrite, mPost, "/webhooks", forbids | creates}, runs(onTeam((*Service).CreateWebhook), CreatedWebhook.Record), nil, Doc{
		Tag: "Webhooks", Summary: "Create a webhook",
		Description: "Scope: `webhooks:write`, and an owner or admin of the token's current team. Subscribes a URL " +
			"to the team's activity and answers with the subscription and its signing secret, shown this once. " +
			"Creating it is an activity entry (`webhook.created`).",
		Success: "The webhook was created (or this is the replay of its creation).",
		Invalid: "`validation_failed`: `url` is missing, not an absolute https URL (or http when allowed), carries " +
			"user information or a fragment, its host cannot be resolved or resolves to a private address; an " +
			"event is not an action; the description is longer than 1,000 characters; or the body or " +
			"`Idempotency-Key` is invalid.",
	}},
	{OpListWebhooks, opTraits{ScopeWebhooksWrite, mGet, "/webhooks", forbids}, nil, nil, Doc{
		Tag: "Webhooks", Summary: "List the team's webhooks",
		Description: "Scope: `webhooks:write`, and an owner or admin of the token's current team. The team's " +
			"webhooks, newest first, 15 a page, without their secrets.",
		Success: "A page of webhooks.",
		Invalid: invalidPage,
	}},
	{OpGetWebhook, opTraits{ScopeWebhooksWrite, mGet, webhookPath, forbids}, nil, nil, Doc{
		Tag: "Webhooks", Summary: "Read a webhook",
		Description: "Scope: `webhooks:write`, and an owner or admin of the token's current team. One webhook of " +
			"the team, without its secret.",
		Success: "The webhook.",
	}},
	{OpDeleteWebhook, opTraits{ScopeWebhooksWrite, mDelete, webhookPath, forbids | empties}, runs[WebhookDeletion, struct{}, struct{}](func(s *Service, ctx context.Context, r Ref, in WebhookDeletion) (Result[struct{}], error) {
		return s.DeleteWebhook(ctx, r.Webhook, in)
	}, nil), nil, Doc{
		Tag: "Webhooks", Summary: "Delete a webhook",
		Description: "Scope: `webhooks:write`, and an owner or admin of the token's current team. Nothing more is " +
			"sent to it, its deliveries go with it, and its deletion is an activity entry (`webhook.deleted`).",
		Success: "The webhook was deleted (or this is the replay of its deletion).",
		Invalid: invalidReasonOnly,
	}},
	{OpListWebhookDeliveries, opTraits{ScopeWebhooksWrite, mGet, webhookPath + "/deliveries", forbids}, nil, nil, Doc{
		Tag: "Webhooks", Summary: "List a webhook's deliveries",
		Description: "Scope: `webhooks:write`, and an owner or admin of the token's current team. The latest " +
			"attempts to deliver the webhook's messages, newest first, 15 a page. An attempt whose " +
			"`next_attempt_at` is `null` and whose `error` is set ended its message: failed after the last " +
			"attempt, or not sent (its `error` says why).",
		Success: "A page of delivery attempts.",
		Invalid: invalidPage,
	}},
}

// WebhookStore is what the Service and its Dispatcher read and record of
// webhooks and their deliveries outside a write.
type WebhookStore interface {
	// List returns a page of a team's webhooks, newest first.
	List(ctx context.Context, p ListWebhooksParams) (List[Webhook], error)
	// Get returns a webhook of a team.
	Get(ctx context.Context, p WebhookParams) (Webhook, error)
	// Deliveries returns a page of the delivery attempts of a webhook of
	// a team, newest first.
	Deliveries(ctx context.Context, p DeliveriesParams) (List[Delivery], error)
	// DeliveryTarget returns what delivering m needs; not_found when its
	// webhook is gone.
	DeliveryTarget(ctx context.Context, m WebhookMessage) (DeliveryTarget, error)
	// RecordDelivery stores a delivery attempt, with the action of its
	// entry; an attempt of a webhook that is gone is dropped.
	RecordDelivery(ctx context.Context, d Delivery) error
	// PurgeDeliveries deletes delivery attempts made before a time.
	PurgeDeliveries(ctx context.Context, before time.Time) (int64, error)
}

// ListWebhooksParams selects a page of a team's webhooks.
type ListWebhooksParams struct {
	TeamID int64
	Page   int
}

// WebhookParams names a webhook of a team.
type WebhookParams struct {
	TeamID, ID int64
}

// DeliveriesParams selects a page of the delivery attempts of a webhook
// of a team.
type DeliveriesParams struct {
	TeamID, WebhookID int64
	Page              int
}

// WebhookTx is what a write transaction does to webhooks. A webhook it
// deletes is one Lock returned.
type WebhookTx interface {
	// Insert stores a webhook and returns it with its id.
	Insert(ctx context.Context, w Webhook) (Webhook, error)
	// Lock returns a webhook of a team, locked.
	Lock(ctx context.Context, p WebhookParams) (Webhook, error)
	// Delete deletes a webhook Lock returned, with its deliveries; its
	// messages still queued find it gone.
	Delete(ctx context.Context, p DeleteWebhookParams) error
}

// DeleteWebhookParams names the webhook to delete.
type DeleteWebhookParams struct {
	ID int64
}

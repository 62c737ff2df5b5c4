package pipeline

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/mail"
	"strings"
	"time"
)

// Lifetimes of the people's sign-in (web.md).
const (
	// SignInLinkLifetime is how long a sign-in link may be used.
	SignInLinkLifetime = 15 * time.Minute
	// SessionIdle ends a session nobody used for that long.
	SessionIdle = 12 * time.Hour
	// SessionLifetime ends a session that long after sign-in, used or not.
	SessionLifetime = 7 * 24 * time.Hour
	// sessionTouchInterval bounds how often a session's last use is
	// written: far below SessionIdle, so the idle end stays exact to it.
	sessionTouchInterval = time.Minute
)

// Sign-in limits, per rate window, counted with the Service's limiter in
// buckets of their own: a mailbox gets few links, an address few tries.
const (
	SignInPerEmail = 5
	SignInPerIP    = 20
)

// SignInPath is the path below which a sign-in link opens, its secret
// following.
const SignInPath = "/app/sign-in/"

// SignInLink is a one-time link that signs a user in. Its secret is
// never stored: only Hash is.
type SignInLink struct {
	ID        int64
	UserID    int64
	Hash      string
	CreatedAt time.Time
	ExpiresAt time.Time
	UsedAt    *time.Time
	User      User // filled by SessionStore.Link
}

// Session is a person's signed-in session. Its value, kept in the
// browser's cookie, is never stored: only Hash is.
type Session struct {
	ID         int64
	UserID     int64
	TeamID     int64 // the team the pages act in; the user's current team is untouched
	Hash       string
	CreatedAt  time.Time
	LastSeenAt time.Time
}

// Ended reports whether the session is over at now: idle for SessionIdle,
// or SessionLifetime after sign-in.
func (s Session) Ended(now time.Time) bool {
	return !now.Before(s.LastSeenAt.Add(SessionIdle)) || !now.Before(s.CreatedAt.Add(SessionLifetime))
}

// SessionAuth is what resuming a session needs: the session, its user and
// the team it acts in (the session's team while the user is a member of
// it, else the user's current team), with the user's role there.
type SessionAuth struct {
	Session Session
	User    User
	Team    Team
	Role    Role
}

// TeamRole is one of a user's teams with the user's role on it.
type TeamRole struct {
	Team Team
	Role Role
}

// newSecret returns 32 random bytes in URL-safe base64: the value of a
// sign-in link or a session.
func newSecret() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// SignInURL is the absolute link that opens a sign-in link's secret, on
// base (a scheme and host, and a path when the server sits below one).
func SignInURL(base, secret string) string {
	return strings.TrimRight(base, "/") + SignInPath + secret
}

// sessionCaller returns the caller of a signed-in person: the session's
// user in the team a names, with every scope (the pages are the
// application itself) and no token, so that activity entries record the
// user and ip and no token. Only ResumeSession calls it, with a session
// it read, so no caller of a person can be forged; the role and the
// visibility rule still bound what the person reaches.
func (s *Service) sessionCaller(a SessionAuth, ip string) Caller {
	return Caller{user: a.User, team: a.Team, scopes: append([]Scope{}, AllScopes...), ip: ip, valid: true, person: true}
}

// newSignInLink stores a fresh link for user and returns its secret.
func newSignInLink(ctx context.Context, store Store, userID int64, now time.Time) (string, error) {
	secret := newSecret()
	err := store.Sessions().CreateLink(ctx, SignInLink{
		UserID: userID, Hash: HashToken(secret), CreatedAt: now, ExpiresAt: now.Add(SignInLinkLifetime),
	})
	if err != nil {
		return "", err
	}
	return secret, nil
}

// SignInLink makes a one-time sign-in link for the user with email, for an
// operator to hand over, and returns its secret (see SignInURL); no mail
// is sent. Errors: not_found (user).
func (o *Operator) SignInLink(ctx context.Context, email string) (string, error) {
	u, err := o.store.Users().ByEmail(ctx, UserByEmailParams{Email: email})
	if err != nil {
		return "", err
	}
	return newSignInLink(ctx, o.store, u.ID, o.now())
}

// SignInRequest is the input of RequestSignIn.
type SignInRequest struct {
	Email string
	IP    string // the client address, whose attempts are counted
	// BaseURL is where the pages are reached, as configured
	// (PIPELINE_BASE_URL); "": no link is mailed, since a link built from
	// the request's Host could point anywhere.
	BaseURL string
}

// signInMailTimeout bounds the sending of a sign-in mail.
const signInMailTimeout = 30 * time.Second

// RequestSignIn is what the sign-in form asks: when the email is a user's,
// mail is configured and r.BaseURL is set, a one-time link is mailed at
// once (not through the outbox, so that its secret never sits in a
// queue). It answers the same whether or not the email is known, in the
// same time too: it returns once the attempt is counted, and the user's
// lookup, the link's write and the mail follow, for a known and an
// unknown email alike, through the Service's background (WithBackground).
// A link lost to a failure there is asked for again. Attempts are counted
// per IP and per email, the email folded as the user lookup folds it
// (Fold: ſ counts as s), in buckets of their own, not against the API's
// budget. Errors: rate_limited, validation_failed (no email).
func (s *Service) RequestSignIn(ctx context.Context, r SignInRequest) error {
	email := Fold(strings.TrimSpace(r.Email))
	if email == "" || len(email) > 320 {
		return Invalid("email", "Enter the email address you were invited with.")
	}
	if err := s.signInAllowed(ctx, "sign-in-ip:"+r.IP, SignInPerIP); err != nil {
		return err
	}
	if err := s.signInAllowed(ctx, "sign-in-email:"+email, SignInPerEmail); err != nil {
		return err
	}
	if s.mail == nil || r.BaseURL == "" {
		return nil
	}
	now := s.now()
	s.background(func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), signInMailTimeout)
		defer cancel()
		_ = s.mailSignInLink(ctx, email, r.BaseURL, now)
	})
	return nil
}

// mailSignInLink mails a new sign-in link to the user with email, if
// there is one, on base.
func (s *Service) mailSignInLink(ctx context.Context, email, base string, now time.Time) error {
	u, err := s.store.Users().ByEmail(ctx, UserByEmailParams{Email: email})
	if errors.Is(err, ErrNotFound) {
		return nil
	} else if err != nil {
		return err
	}
	secret, err := newSignInLink(ctx, s.store, u.ID, now)
	if err != nil {
		return err
	}
	reply := s.mail.Mailer.Send(ctx, Mail{
		From:    s.mail.From,
		To:      &mail.Address{Name: u.Name, Address: u.Email},
		Subject: "Your sign-in link",
		Date:    now,
		Body: "Hello " + u.Name + ",\n\nOpen this link to sign in to Pipeline. It works once, within " +
			"15 minutes:\n\n" + SignInURL(base, secret) + "\n\nIf you did not ask for it, ignore this mail.\n",
	})
	return reply.Err
}

// signInAllowed counts one attempt against bucket, allowing limit per
// window (or the limiter's own limit, when lower).
func (s *Service) signInAllowed(ctx context.Context, bucket string, limit int) error {
	q, err := s.limiter.Take(ctx, bucket, s.clock.Now())
	if err != nil {
		return err
	}
	if !q.Allowed || q.Limit-q.Remaining > limit {
		return ErrRateLimited
	}
	return nil
}

// ErrLinkUnusable is the answer to a sign-in link that is unknown, used or
// past its 15 minutes.
var ErrLinkUnusable = &Error{Code: ENotFound, Message: "This sign-in link is used or expired. Ask for a new one."}

// SignInLinkUser returns the user a sign-in link would sign in, without
// using it up, so that opening the link (which mail scanners do) changes
// nothing. Errors: not_found (ErrLinkUnusable).
func (s *Service) SignInLinkUser(ctx context.Context, secret string) (User, error) {
	l, err := s.usableLink(ctx, secret)
	return l.User, err
}

func (s *Service) usableLink(ctx context.Context, secret string) (SignInLink, error) {
	if secret == "" || len(secret) > 100 {
		return SignInLink{}, ErrLinkUnusable
	}
	l, err := s.store.Sessions().Link(ctx, SignInLinkParams{Hash: HashToken(secret)})
	if errors.Is(err, ErrNotFound) {
		return SignInLink{}, ErrLinkUnusable
	} else if err != nil {
		return SignInLink{}, err
	}
	if l.UsedAt != nil || !s.now().Before(l.ExpiresAt) {
		return SignInLink{}, ErrLinkUnusable
	}
	return l, nil
}

// SignIn uses a sign-in link up and starts a session of its user in the
// user's current team, with a new value each time. It returns the
// session's value, for the cookie; only its hash is stored. Errors:
// not_found (ErrLinkUnusable: unknown, used or expired).
func (s *Service) SignIn(ctx context.Context, secret string) (string, error) {
	l, err := s.usableLink(ctx, secret)
	if err != nil {
		return "", err
	}
	now := s.now()
	// Only one of two concurrent uses finds the link unused.
	if err := s.store.Sessions().UseLink(ctx, UseSignInLinkParams{ID: l.ID, At: now}); errors.Is(err, ErrNotFound) {
		return "", ErrLinkUnusable
	} else if err != nil {
		return "", err
	}
	u, err := s.store.Users().Get(ctx, UserParams{ID: l.UserID})
	if err != nil {
		return "", err
	}
	value := newSecret()
	_, err = s.store.Sessions().Create(ctx, Session{UserID: l.UserID, TeamID: u.Team.ID, Hash: HashToken(value), CreatedAt: now, LastSeenAt: now})
	if err != nil {
		return "", err
	}
	return value, nil
}

// ResumeSession returns a context carrying the caller of a signed-in
// person for the session with value, from the client address ip, and the
// session's state. An unknown or ended session is unauthenticated.
func (s *Service) ResumeSession(ctx context.Context, value, ip string) (context.Context, SessionAuth, error) {
	if value == "" || len(value) > 100 {
		return ctx, SessionAuth{}, ErrUnauthenticated
	}
	a, err := s.store.Sessions().Get(ctx, SessionParams{Hash: HashToken(value)})
	if errors.Is(err, ErrNotFound) {
		return ctx, SessionAuth{}, ErrUnauthenticated
	} else if err != nil {
		return ctx, SessionAuth{}, err
	}
	now := s.now()
	if a.Session.Ended(now) {
		return ctx, SessionAuth{}, ErrUnauthenticated
	}
	if now.Sub(a.Session.LastSeenAt) >= sessionTouchInterval {
		if err := s.store.Sessions().Touch(ctx, TouchSessionParams{ID: a.Session.ID, At: now}); err != nil {
			return ctx, SessionAuth{}, err
		}
	}
	return NewContext(ctx, s.sessionCaller(a, ip)), a, nil
}

// SignOut ends the session with value; an unknown one is already ended.
func (s *Service) SignOut(ctx context.Context, value string) error {
	if value == "" {
		return nil
	}
	return s.store.Sessions().Delete(ctx, SessionParams{Hash: HashToken(value)})
}

// person returns the signed-in person calling: forbidden for a token's
// caller, since the pages' operations are the people's own.
func person(ctx context.Context) (Caller, error) {
	c, ok := CallerFrom(ctx)
	if !ok {
		return Caller{}, ErrUnauthenticated
	}
	if !c.person {
		return Caller{}, &Error{Code: EForbidden, Message: "Only a signed-in person may do this."}
	}
	return c, nil
}

// TeamMembers returns the users of the session's team, by id: the names
// the pages show for ids (an interview's interviewers). Errors:
// unauthenticated, forbidden (a token's caller).
func (s *Service) TeamMembers(ctx context.Context) ([]User, error) {
	c, err := person(ctx)
	if err != nil {
		return nil, err
	}
	ms, err := s.store.Members().List(ctx, ListMembersParams{TeamID: &c.team.ID})
	out := make([]User, len(ms))
	for i, m := range ms {
		out[i] = m.User
	}
	return out, err
}

// SendsMail reports whether the Service sends mail (messages, and, with
// invitations, SendsInvitations).
func (s *Service) SendsMail() bool { return s.mail != nil }

// SendsInvitations reports whether interviews' changes email their
// invitations.
func (s *Service) SendsInvitations() bool { return s.mail != nil && s.render != nil }

// MyTeams returns the teams of the signed-in person, by id, with their
// roles. Errors: unauthenticated, forbidden (a token's caller).
func (s *Service) MyTeams(ctx context.Context) ([]TeamRole, error) {
	c, err := person(ctx)
	if err != nil {
		return nil, err
	}
	return s.store.Users().Teams(ctx, UserParams{ID: c.user.ID})
}

// SwitchTeam makes teamID the team the session with value acts in, for
// the signed-in person who holds it; the user's current team, which
// tokens act in, is unchanged. Errors: unauthenticated, forbidden,
// not_found (a team the person is no member of).
func (s *Service) SwitchTeam(ctx context.Context, value string, teamID int64) error {
	c, err := person(ctx)
	if err != nil {
		return err
	}
	role, err := s.store.Members().Role(ctx, MemberParams{UserID: c.user.ID, TeamID: teamID})
	if err != nil {
		return err
	}
	if role == "" {
		return &Error{Code: ENotFound, Message: "Team not found."}
	}
	return s.store.Sessions().SetTeam(ctx, SetSessionTeamParams{Hash: HashToken(value), UserID: c.user.ID, TeamID: teamID})
}

// TokenForm is what the tokens page sends to create a token.
type TokenForm struct {
	Name   string
	Scopes []Scope // none: a token that reaches GET /me only
	// Approval names the writes the token may only propose, or
	// EveryWrite (see NormalizeApproval); none: it makes every write its
	// scopes allow.
	Approval []Op
	// Nonce is the form's one-time value: a form sent again with it
	// creates no second token (conflict).
	Nonce string
}

// ErrFormUsed is the answer to a token form sent a second time.
var ErrFormUsed = &Error{Code: EConflict, Message: "This form was sent already: its token was created then, and its value is not shown again."}

// CreateToken creates a token for the signed-in person inside the team the
// session acts in, and returns it with its value, which is shown this
// once; it is logged as token.created. Errors: unauthenticated,
// forbidden (a token's caller), validation_failed (name; scopes, also
// proposals:review with an approval policy; approval: a read or an
// unknown operation; nonce), conflict (ErrFormUsed).
func (s *Service) CreateToken(ctx context.Context, f TokenForm) (Token, string, error) {
	c, err := person(ctx)
	if err != nil {
		return Token{}, "", err
	}
	bad := FieldErrors{}
	if checkText(bad, "name", f.Name) && strings.TrimSpace(f.Name) == "" {
		bad.Add("name", "The name field is required.")
	}
	if err := bad.Err(); err != nil {
		return Token{}, "", err
	}
	scopes, err := NormalizeScopes("scopes", f.Scopes)
	if err != nil {
		return Token{}, "", err
	}
	approval, err := NormalizeApproval(ApprovalField, "scopes", f.Approval, scopes)
	if err != nil {
		return Token{}, "", err
	}
	if f.Nonce == "" || len(f.Nonce) > 100 {
		return Token{}, "", Invalid("nonce", "Reload the page and send the form again.")
	}
	now := s.now()
	value := NewTokenValue()
	var t Token
	err = s.store.Write(ctx, func(tx Tx) error {
		var err error
		t, err = tx.Tokens().Insert(ctx, InsertTokenParams{Token: Token{
			UserID: c.user.ID, TeamID: c.team.ID, Name: strings.TrimSpace(f.Name), Scopes: scopes, Approval: approval, Hash: HashToken(value),
			CreatedAt: now, ExpiresAt: AddMonths(now, TokenLifetime),
		}, FormHash: HashToken(f.Nonce)})
		if err != nil {
			return err
		}
		return logToken(ctx, tx, c, now, ActionTokenCreated, nil, &t)
	})
	if errors.Is(err, ErrConflict) {
		return Token{}, "", ErrFormUsed
	} else if err != nil {
		return Token{}, "", err
	}
	return t, value, nil
}

// TokenLists is what the tokens page shows.
type TokenLists struct {
	Mine []Token // the person's own tokens, in every team, oldest first
	// Team is every token created inside the session's team, with its
	// creator, for its owners and admins; nil for a member.
	Team []Token
	Role Role // the person's role in the session's team
}

// Tokens lists the signed-in person's tokens, and for an owner or admin
// every token of the session's team. Errors: unauthenticated, forbidden.
func (s *Service) Tokens(ctx context.Context) (TokenLists, error) {
	c, err := person(ctx)
	if err != nil {
		return TokenLists{}, err
	}
	var out TokenLists
	if out.Mine, err = s.store.Tokens().List(ctx, ListTokensParams{UserID: c.user.ID}); err != nil {
		return TokenLists{}, err
	}
	if out.Role, err = s.store.Members().Role(ctx, MemberParams{UserID: c.user.ID, TeamID: c.team.ID}); err != nil {
		return TokenLists{}, err
	}
	if out.Role == RoleOwner || out.Role == RoleAdmin {
		if out.Team, err = s.store.Tokens().List(ctx, ListTokensParams{TeamID: c.team.ID}); err != nil {
			return TokenLists{}, err
		}
	}
	return out, nil
}

// TokenToRevoke returns a token the signed-in person may revoke: their
// own, or as owner or admin of the session's team one created inside it.
// Errors: unauthenticated, forbidden, not_found (any other token).
func (s *Service) TokenToRevoke(ctx context.Context, id int64) (Token, error) {
	c, err := person(ctx)
	if err != nil {
		return Token{}, err
	}
	lists, err := s.Tokens(ctx)
	if err != nil {
		return Token{}, err
	}
	for _, t := range append(lists.Mine, lists.Team...) {
		if t.ID == id && (t.UserID == c.user.ID || t.TeamID == c.team.ID) {
			return t, nil
		}
	}
	return Token{}, &Error{Code: ENotFound, Message: "Token not found."}
}

// RevokeToken revokes a token the signed-in person may revoke (see
// TokenToRevoke) at once, logged as token.revoked; revoking it again keeps
// the first time and logs nothing. Errors: as TokenToRevoke.
func (s *Service) RevokeToken(ctx context.Context, id int64) error {
	if _, err := s.TokenToRevoke(ctx, id); err != nil {
		return err
	}
	c, err := person(ctx)
	if err != nil {
		return err
	}
	if err := revokeToken(ctx, s.store, c, id, s.now()); err != nil {
		return err
	}
	s.tokens.forget(id)
	return nil
}

// SetTokenApproval replaces the approval policy of a token the signed-in
// person may change (see TokenToRevoke: their own, or as owner or admin
// one of the session's team), logged as token.approval_changed; the
// policy it has already changes and logs nothing. Errors:
// unauthenticated, forbidden, not_found, validation_failed (approval;
// scopes: the token carries proposals:review).
func (s *Service) SetTokenApproval(ctx context.Context, id int64, approval []Op) (Token, error) {
	if _, err := s.TokenToRevoke(ctx, id); err != nil {
		return Token{}, err
	}
	c, err := person(ctx)
	if err != nil {
		return Token{}, err
	}
	t, err := setTokenApproval(ctx, s.store, c, id, approval, s.now())
	if err != nil {
		return Token{}, err
	}
	s.tokens.forget(id)
	return t, nil
}

// SessionStore holds the people's sign-in links and sessions.
type SessionStore interface {
	// CreateLink stores a sign-in link (its hash, never its secret).
	CreateLink(ctx context.Context, l SignInLink) error
	// Link returns the sign-in link with the given hash, used and expired
	// ones included, with its user.
	Link(ctx context.Context, p SignInLinkParams) (SignInLink, error)
	// UseLink marks a link used at the given time; not_found when it was
	// used already, so that only one use succeeds.
	UseLink(ctx context.Context, p UseSignInLinkParams) error
	// Create stores a session (its hash, never its value) and returns it
	// with its id.
	Create(ctx context.Context, s Session) (Session, error)
	// Get returns a session with its user and the team it acts in: its
	// team while the user is a member of it, else the user's current
	// team; with the user's role there.
	Get(ctx context.Context, p SessionParams) (SessionAuth, error)
	// Touch records the last use of a session.
	Touch(ctx context.Context, p TouchSessionParams) error
	// SetTeam sets the team of the session with the given hash and user;
	// not_found when there is none such.
	SetTeam(ctx context.Context, p SetSessionTeamParams) error
	// Delete deletes the session with the given hash, if any.
	Delete(ctx context.Context, p SessionParams) error
}

// SignInLinkParams names a sign-in link by its hash.
type SignInLinkParams struct {
	Hash string
}

// UseSignInLinkParams is a sign-in link's use at a time.
type UseSignInLinkParams struct {
	ID int64
	At time.Time
}

// SessionParams names a session by its hash.
type SessionParams struct {
	Hash string
}

// TouchSessionParams is a session's use at a time.
type TouchSessionParams struct {
	ID int64
	At time.Time
}

// SetSessionTeamParams moves a user's session, named by its hash, to a
// team.
type SetSessionTeamParams struct {
	Hash           string
	UserID, TeamID int64
}

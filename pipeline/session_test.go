package pipeline_test

import (
	"context"
	"net/mail"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// movableClock is a clock a test moves forward.
type movableClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *movableClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *movableClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// signedIn signs the fixture user with email in through a link the
// Operator made, and returns the session's value and its caller's context.
func signedIn(t *testing.T, svc *pipeline.Service, op *pipeline.Operator, email string) (string, context.Context) {
	t.Helper()
	ctx := context.Background()
	secret, err := op.SignInLink(ctx, email)
	require.NoError(t, err)
	value, err := svc.SignIn(ctx, secret)
	require.NoError(t, err)
	pctx, _, err := svc.ResumeSession(ctx, value, "192.0.2.7")
	require.NoError(t, err)
	return value, pctx
}

func TestService_SignIn(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		clock := &movableClock{now: time.Now().UTC()}
		f := storetest.Seeded(t, db, pipeline.WithClock(clock))
		ctx := context.Background()

		t.Run("a link signs in once", func(t *testing.T) {
			secret, err := f.Op.SignInLink(ctx, "OLIVIA@acme.test")
			require.NoError(t, err)
			u, err := f.Svc.SignInLinkUser(ctx, secret)
			require.NoError(t, err)
			assert.Equal(t, "olivia@acme.test", u.Email)
			// Looking at it used nothing up.
			first, err := f.Svc.SignIn(ctx, secret)
			require.NoError(t, err)
			_, err = f.Svc.SignIn(ctx, secret)
			assert.ErrorIs(t, err, pipeline.ErrNotFound)
			_, err = f.Svc.SignInLinkUser(ctx, secret)
			assert.ErrorIs(t, err, pipeline.ErrNotFound)

			pctx, auth, err := f.Svc.ResumeSession(ctx, first, "192.0.2.7")
			require.NoError(t, err)
			me, err := f.Svc.GetMe(pctx)
			require.NoError(t, err)
			assert.Equal(t, "olivia@acme.test", me.User.Email)
			assert.Equal(t, pipeline.AllScopes, me.Scopes, "a person acts with every scope")
			c, _ := pipeline.CallerFrom(pctx)
			assert.Zero(t, c.TokenID())
			assert.Equal(t, "192.0.2.7", c.IP())
			assert.Equal(t, pipeline.RoleOwner, auth.Role)

			// Each sign-in is a new session.
			again, err := f.Op.SignInLink(ctx, "olivia@acme.test")
			require.NoError(t, err)
			second, err := f.Svc.SignIn(ctx, again)
			require.NoError(t, err)
			assert.NotEqual(t, first, second)
		})

		t.Run("a stale link is refused", func(t *testing.T) {
			secret, err := f.Op.SignInLink(ctx, "mia@acme.test")
			require.NoError(t, err)
			clock.Advance(pipeline.SignInLinkLifetime)
			_, err = f.Svc.SignIn(ctx, secret)
			assert.ErrorIs(t, err, pipeline.ErrNotFound)
		})

		t.Run("sessions end idle, at their lifetime and at sign-out", func(t *testing.T) {
			value, _ := signedIn(t, f.Svc, f.Op, "adam@acme.test")
			clock.Advance(pipeline.SessionIdle - time.Minute)
			_, _, err := f.Svc.ResumeSession(ctx, value, "")
			require.NoError(t, err, "used within 12 hours")
			clock.Advance(pipeline.SessionIdle - time.Minute)
			_, _, err = f.Svc.ResumeSession(ctx, value, "")
			require.NoError(t, err, "used again within 12 hours")
			clock.Advance(pipeline.SessionIdle)
			_, _, err = f.Svc.ResumeSession(ctx, value, "")
			assert.ErrorIs(t, err, pipeline.ErrUnauthenticated, "12 hours idle")

			value, _ = signedIn(t, f.Svc, f.Op, "adam@acme.test")
			for range 14 {
				clock.Advance(pipeline.SessionIdle)
				if _, _, err = f.Svc.ResumeSession(ctx, value, ""); err != nil {
					break
				}
			}
			assert.ErrorIs(t, err, pipeline.ErrUnauthenticated, "7 days after sign-in")

			value, _ = signedIn(t, f.Svc, f.Op, "adam@acme.test")
			require.NoError(t, f.Svc.SignOut(ctx, value))
			_, _, err = f.Svc.ResumeSession(ctx, value, "")
			assert.ErrorIs(t, err, pipeline.ErrUnauthenticated, "signed out")
			_, _, err = f.Svc.ResumeSession(ctx, "forged", "")
			assert.ErrorIs(t, err, pipeline.ErrUnauthenticated)
		})
	})
}

func TestService_SwitchTeam(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f := storetest.Seeded(t, db)
		ctx := context.Background()
		globex := f.Res.Teams["globex"]
		_, err := f.Op.AddUser(ctx, pipeline.NewMember{Email: "olivia@acme.test", TeamID: globex, Role: pipeline.RoleMember})
		require.NoError(t, err)
		value, pctx := signedIn(t, f.Svc, f.Op, "olivia@acme.test")

		teams, err := f.Svc.MyTeams(pctx)
		require.NoError(t, err)
		require.Len(t, teams, 2)
		assert.Equal(t, "Globex", teams[1].Team.Name)
		assert.Equal(t, pipeline.RoleMember, teams[1].Role)

		require.NoError(t, f.Svc.SwitchTeam(pctx, value, globex))
		pctx, auth, err := f.Svc.ResumeSession(ctx, value, "")
		require.NoError(t, err)
		assert.Equal(t, globex, auth.Team.ID)
		assert.Equal(t, pipeline.RoleMember, auth.Role)
		// Tokens still act in the user's current team.
		me, err := f.Svc.GetMe(f.As(t, "olivia"))
		require.NoError(t, err)
		assert.Equal(t, f.Res.Teams["acme"], me.Team.ID)

		// A member of Globex sees only their own tokens there.
		lists, err := f.Svc.Tokens(pctx)
		require.NoError(t, err)
		assert.Nil(t, lists.Team)

		_, mctx := signedIn(t, f.Svc, f.Op, "mia@acme.test")
		assert.ErrorIs(t, f.Svc.SwitchTeam(mctx, value, globex), pipeline.ErrNotFound, "mia is no member of Globex")
	})
}

func TestService_TokensOfPeople(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f := storetest.Seeded(t, db)
		ctx := context.Background()
		_, mia := signedIn(t, f.Svc, f.Op, "mia@acme.test")
		_, olivia := signedIn(t, f.Svc, f.Op, "olivia@acme.test")

		tok, value, err := f.Svc.CreateToken(mia, pipeline.TokenForm{
			Name: "agent", Scopes: []pipeline.Scope{pipeline.ScopeJobsRead, pipeline.ScopeCandidatesRead}, Nonce: "n1"})
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(value, pipeline.TokenPrefix))
		caller, err := f.Svc.Authenticate(ctx, value)
		require.NoError(t, err)
		assert.Equal(t, []pipeline.Scope{pipeline.ScopeJobsRead, pipeline.ScopeCandidatesRead}, caller.Scopes())

		_, _, err = f.Svc.CreateToken(mia, pipeline.TokenForm{Name: "agent", Nonce: "n1"})
		assert.ErrorIs(t, err, pipeline.ErrConflict, "the same form again")
		_, _, err = f.Svc.CreateToken(mia, pipeline.TokenForm{Name: " ", Nonce: "n2"})
		assert.ErrorIs(t, err, pipeline.ErrValidation)

		lists, err := f.Svc.Tokens(mia)
		require.NoError(t, err)
		assert.Nil(t, lists.Team, "a member sees only their own")
		names := []string{}
		for _, t := range lists.Mine {
			names = append(names, t.Name)
		}
		assert.Equal(t, []string{"mia all scopes", "agent"}, names, "one token from the form sent twice")

		lists, err = f.Svc.Tokens(olivia)
		require.NoError(t, err)
		var seen bool
		for _, t := range lists.Team {
			seen = seen || t.ID == tok.ID && t.Creator.Email == "mia@acme.test"
		}
		assert.True(t, seen, "the owner sees mia's token with its creator")

		// Mia cannot revoke Olivia's; Olivia, the owner, may revoke Mia's.
		assert.ErrorIs(t, f.Svc.RevokeToken(mia, lists.Mine[0].ID), pipeline.ErrNotFound)
		require.NoError(t, f.Svc.RevokeToken(olivia, tok.ID))
		_, err = f.Svc.Authenticate(ctx, value)
		assert.ErrorIs(t, err, pipeline.ErrUnauthenticated, "revoked at once")

		// An approval policy, as oversight.md §2 has it.
		held, value, err := f.Svc.CreateToken(mia, pipeline.TokenForm{Name: "held", Scopes: []pipeline.Scope{pipeline.ScopeCandidatesWrite, pipeline.ScopeMessagesSend},
			Approval: []pipeline.Op{pipeline.OpSendMessage, pipeline.OpMoveCandidate}, Nonce: "n4"})
		require.NoError(t, err)
		assert.Equal(t, []pipeline.Op{pipeline.OpMoveCandidate, pipeline.OpSendMessage}, held.Approval)
		caller, err = f.Svc.Authenticate(ctx, value)
		require.NoError(t, err)
		assert.True(t, caller.Held(pipeline.OpMoveCandidate))
		for name, form := range map[string]pipeline.TokenForm{
			"approval": {Name: "x", Approval: []pipeline.Op{pipeline.OpListJobs}, Nonce: "n5"},
			"scopes":   {Name: "x", Scopes: []pipeline.Scope{pipeline.ScopeProposalsReview}, Approval: []pipeline.Op{pipeline.EveryWrite}, Nonce: "n6"},
		} {
			_, _, err = f.Svc.CreateToken(mia, form)
			var e *pipeline.Error
			require.ErrorAs(t, err, &e, name)
			assert.Contains(t, e.Details, name)
		}

		// A token's caller has no business with the people's operations.
		_, _, err = f.Svc.CreateToken(f.As(t, "olivia"), pipeline.TokenForm{Name: "x", Nonce: "n3"})
		assert.ErrorIs(t, err, pipeline.ErrForbidden)
	})
}

func TestService_RequestSignIn(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f := storetest.Seeded(t, db, pipeline.WithLimiter(pipeline.NewMemoryLimiter(60)))
		ctx := context.Background()
		for i := range pipeline.SignInPerEmail {
			require.NoError(t, f.Svc.RequestSignIn(ctx, pipeline.SignInRequest{Email: "nobody@acme.test", IP: "192.0.2.1"}), i)
		}
		err := f.Svc.RequestSignIn(ctx, pipeline.SignInRequest{Email: "Nobody@acme.test", IP: "192.0.2.2"})
		assert.ErrorIs(t, err, pipeline.ErrRateLimited, "per email")
		for i := range pipeline.SignInPerIP - pipeline.SignInPerEmail {
			require.NoError(t, f.Svc.RequestSignIn(ctx, pipeline.SignInRequest{Email: "x" + string(rune('a'+i)) + "@acme.test", IP: "192.0.2.1"}), i)
		}
		err = f.Svc.RequestSignIn(ctx, pipeline.SignInRequest{Email: "new@acme.test", IP: "192.0.2.1"})
		assert.ErrorIs(t, err, pipeline.ErrRateLimited, "per IP")
		// The API's budget of the same address is untouched.
		_, adm, err := f.Svc.Admit(ctx, "", "192.0.2.1")
		assert.ErrorIs(t, err, pipeline.ErrUnauthenticated)
		assert.Equal(t, 59, adm.Quota.Remaining)
	})
}

// linkCounter is a Store that counts the sign-in links written.
type linkCounter struct {
	pipeline.Store
	links atomic.Int32
}

func (s *linkCounter) Sessions() pipeline.SessionStore {
	return linkCounting{SessionStore: s.Store.Sessions(), links: &s.links}
}

// linkCounting is the SessionStore of a linkCounter.
type linkCounting struct {
	pipeline.SessionStore
	links *atomic.Int32
}

func (s linkCounting) CreateLink(ctx context.Context, l pipeline.SignInLink) error {
	s.links.Add(1)
	return s.SessionStore.CreateLink(ctx, l)
}

// mailBox is a Mailer that keeps what it is given.
type mailBox struct {
	mu   sync.Mutex
	sent []pipeline.Mail
}

func (b *mailBox) Send(_ context.Context, m pipeline.Mail) pipeline.MailReply {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sent = append(b.sent, m)
	return pipeline.MailReply{Code: 250}
}

func (b *mailBox) count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.sent)
}

// TestService_RequestSignIn_SameAnswer: the sign-in form's answer does the
// same work whether or not the email is a user's: nothing is written
// before it for a known email (no link row, no mail), and what follows
// the answer (the lookup, the link, the mail) runs after it for both.
func TestService_RequestSignIn_SameAnswer(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		storetest.Seeded(t, db)
		store := &linkCounter{Store: db}
		box := &mailBox{}
		var later []func()
		svc := pipeline.NewService(store, pipeline.WithMail(&mail.Address{Address: "jobs@acme.example"}, box),
			pipeline.WithBackground(func(work func()) { later = append(later, work) }))
		ctx := context.Background()

		for _, c := range []struct {
			email string
			links int
		}{{"olivia@acme.test", 1}, {"nobody@acme.test", 0}} {
			later = nil
			store.links.Store(0)
			before := box.count()
			require.NoError(t, svc.RequestSignIn(ctx, pipeline.SignInRequest{Email: c.email, IP: "192.0.2.1", BaseURL: "https://hiring.example"}))
			assert.Zero(t, store.links.Load(), "%s: a link row written before the answer", c.email)
			assert.Equal(t, before, box.count(), "%s: a mail sent before the answer", c.email)
			require.Len(t, later, 1, "%s: the same work follows the answer", c.email)
			later[0]()
			assert.Equal(t, int32(c.links), store.links.Load(), c.email)
			assert.Equal(t, before+c.links, box.count(), c.email)
		}
		m := box.sent[0]
		assert.Equal(t, "olivia@acme.test", m.To.Address)
		assert.Contains(t, m.Body, "https://hiring.example/app/sign-in/")
	})
}

// TestService_RequestSignIn_FoldedLimit: the per-email limit counts an
// email folded as the user lookup folds it: ſ counts as s.
func TestService_RequestSignIn_FoldedLimit(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f := storetest.Seeded(t, db, pipeline.WithLimiter(pipeline.NewMemoryLimiter(60)))
		ctx := context.Background()
		const other = "OLIVIA@acme.teſt"
		u, err := db.Users().ByEmail(ctx, pipeline.UserByEmailParams{Email: other})
		require.NoError(t, err, "the lookup finds her by this spelling")
		assert.Equal(t, f.User("olivia"), u.ID)

		for i := range pipeline.SignInPerEmail {
			require.NoError(t, f.Svc.RequestSignIn(ctx, pipeline.SignInRequest{Email: "olivia@acme.test", IP: "192.0.2.1"}), i)
		}
		err = f.Svc.RequestSignIn(ctx, pipeline.SignInRequest{Email: other, IP: "192.0.2.2"})
		assert.ErrorIs(t, err, pipeline.ErrRateLimited, "%s counts as olivia@acme.test", other)
	})
}

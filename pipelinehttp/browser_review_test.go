package pipelinehttp_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipeline/doctext"
	"github.com/pipeline-dev/pipeline/pipelinehttp/browsertest"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// TestBrowser_Review: a reviewer opens an approval card's candidate, reads
// the document the agent cited, and approves there, on a phone and on a
// desktop; and the token form keeps its ticks after a refused submit.
func TestBrowser_Review(t *testing.T) {
	browsertest.Chromium(t)
	for _, size := range []struct{ w, h int64 }{{360, 740}, {1280, 900}} {
		t.Run(strconv.FormatInt(size.w, 10), func(t *testing.T) {
			f, base := serveWorld(t, storetest.OpenSQLite(t), approvalOptions(t)...)
			ctx := f.As(t, "olivia")
			job, ada := f.Job("backend"), f.Res.Candidates["ada"]
			doc, err := f.Svc.AddDocument(ctx, job, ada, pipeline.NewDocument{Filename: "ada-cv.txt",
				Content: []byte("Ada Lovelace. Wrote the first program, for the Analytical Engine.")})
			require.NoError(t, err)
			require.NoError(t, pipeline.NewTexts(f.DB, doctext.Process{}).Extract(context.Background(), doc.Value.ID))
			token := agent(t, f, "olivia", "sourcing agent", pipeline.OpMoveCandidate)
			id := propose(t, base, token, "POST", candidatePath(f, "backend", "ada")+"/stage",
				map[string]any{"stage": f.Res.Stages["backend"]["Screening"], "reason": "Her CV says she wrote the first program."})

			b := newTab(t, f, base, size.w, size.h)
			b.signIn("mia@acme.test")
			card := fmt.Sprintf(`#proposal-%d`, id)
			b.Run(chromedp.Navigate(base+"/app/approvals"), chromedp.WaitVisible(chromedp.CSS(card)))
			b.Shot("approvals")
			b.Run(chromedp.Click(chromedp.Search(`//a[starts-with(normalize-space(), "See the candidate")]`)),
				chromedp.WaitVisible(chromedp.Search(`//h1[normalize-space()="Ada Lovelace"]`)))
			b.Run(chromedp.Click(chromedp.Search(`//summary[normalize-space()="The text an agent reads of it"]`)))
			assert.Contains(t, b.Text("main"), "Wrote the first program, for the Analytical Engine.", "the text the agent read")
			assert.Contains(t, b.Text("main"), "ada-cv.txt")
			assert.Contains(t, b.Text("main"), "Her CV says she wrote the first program.")
			b.Shot("candidate")
			b.Run(chromedp.Click(chromedp.CSS(card + ` button[value=approve]`)))
			require.Eventually(t, func() bool { return proposalStatus(t, f, id) == pipeline.ProposalApplied }, 10*time.Second, 50*time.Millisecond)
			assert.Equal(t, "Screening", candidateStage(t, f, "backend", "ada"), "the candidate moved")
			b.Run(chromedp.WaitVisible(chromedp.Search(`//*[contains(., "Done: Ada Lovelace is in Screening")]`)))
			b.Shot("approved")

			// A refused token form comes back with every tick.
			b.Run(chromedp.Navigate(base+"/app/tokens"), chromedp.WaitVisible(chromedp.CSS(`#new-h`)),
				chromedp.SendKeys(chromedp.CSS(`input[name=name]`), "agent"),
				chromedp.Click(chromedp.CSS(`input[name=scope][value="candidates:write"]`)),
				chromedp.Click(chromedp.CSS(`input[name=scope][value="proposals:review"]`)),
				chromedp.Click(chromedp.CSS(`input[name=approval][value="move_candidate"]`)),
				chromedp.Click(chromedp.Search(`//button[normalize-space()="Create token"]`)),
				chromedp.WaitVisible(chromedp.Search(`//*[contains(., "cannot carry proposals:review")]`)))
			for _, box := range []string{`input[name=scope][value="candidates:write"]`, `input[name=scope][value="proposals:review"]`, `input[name=approval][value="move_candidate"]`} {
				assert.True(t, browsertest.Get(b.Tab, chromedp.Evaluate[bool](fmt.Sprintf(`document.querySelector(%q).checked`, box))), box)
			}
			b.Shot("refused")
		})
	}
}

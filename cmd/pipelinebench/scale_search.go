package main

import (
	"fmt"
	"io"
)

// commonFragment is the scale part's common search term: a fragment of
// several last names (Johnson, Wilson, Jackson, Thompson, Johansson…) that
// about 3% of a job's candidates match, against about one in 150 for
// searchFragments. No fragment of four letters of the name lists comes
// closer to 3% (the nearest, "erre", picks out 2.3%). A common term is
// what users type, and its matches are too many to sort: the page must
// come from the list's order.
const commonFragment = "son"

// writeScaleSearchTable writes the searches of the scale part with their
// p99s and the share of the job's candidates they match.
func writeScaleSearchTable(out io.Writer, w *world, rows []scaleRow) {
	fmt.Fprintln(out, "Searches, p50 and p99 on each job; the share is meta.total over the job's candidates:")
	fmt.Fprintln(out)
	fmt.Fprintln(out, "| query | job | share | ours p50 | ours p99 | baseline p50 | baseline p99 |")
	fmt.Fprintln(out, "|---|--:|--:|--:|--:|--:|--:|")
	for _, r := range rows {
		if !r.Search {
			continue
		}
		for i, j := range w.Scale {
			fmt.Fprintf(out, "| %s | %s | %.2f%% | %s | %s | %s | %s |\n", r.Query, sizeLabel(j.Size),
				100*float64(r.Totals[i])/float64(max(j.Size, 1)), ms(r.Ours[i]), ms(r.OursP99[i]), ms(r.Base[i]), ms(r.BaseP99[i]))
		}
	}
	fmt.Fprintln(out)
}

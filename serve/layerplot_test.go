package serve_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"
	preq "github.com/polyvol/polyvol/request"
	"github.com/polyvol/polyvol/serve"
)

// TestBrowserLayerPlot drives the page's layer-condition plot in headless
// Chromium for the rows of a 2-D kernel and the planes of a 3-D one, each
// with two blocks, against polyvol layercond's report for the same flags:
// every point has a marker in both panels, the x axis names the swept
// extent and the domain, the dashed lines mark the transitions the report
// finds, and no two labels of the plot overlap.
func TestBrowserLayerPlot(t *testing.T) {
	skipBrowserInShortMode(t)
	srv := httptest.NewServer(serve.New(serve.Config{}))
	defer srv.Close()
	ctx := browser(t)
	do(t, ctx, chromedp.Navigate(srv.URL), chromedp.WaitVisible(`body[data-ready="true"]`))
	for _, c := range []struct {
		example, blocks, axis, layer string
	}{
		{"star2d-r1", "256,2,1:128,4,1", "row length s (domain s × y, y = 2^29/s rows)", "rows"},
		{"star3d-r4", "1024,1,1:256,1,4", "XY plane size s (domain s × s × z, z = 2^29/s²)", "z layer"},
	} {
		var rep preq.LayercondReport
		if err := json.Unmarshal([]byte(cliOutput(t, "layercond", c.example, "--device", "A100-40GB", "--block", c.blocks, "--format", "json")), &rep); err != nil {
			t.Fatal(err)
		}
		do(t, ctx,
			chromedp.SetValue("#example", c.example),
			dispatch("example", "change"),
			chromedp.SetValue("#device", "A100-40GB"),
			setField("block", c.blocks),
			setField("fold", ""),
			chromedp.Evaluate[chromedp.Void](`(document.getElementById("layer-plot").replaceChildren(), {})`),
			chromedp.Click("#layercond"),
			chromedp.WaitVisible("#layer-plot svg"),
		)
		points := 0
		var want []string
		for _, sw := range rep.Sweeps {
			points += len(sw.Points)
			for _, tr := range sw.Transitions {
				if tr.Kind == "transition" {
					layer := "rows"
					if rep.Dims == 3 {
						layer = tr.Layer + " layer"
					}
					want = append(want, fmt.Sprintf("%s: reuse fits up to s = %d", layer, tr.S))
				}
			}
		}
		if markers := evaluate[int](t, ctx, `document.querySelectorAll("#layer-plot svg circle.layer-point").length`); markers != 2*points {
			t.Errorf("%s: %d markers, want one per point and panel, %d", c.example, markers, 2*points)
		}
		if texts := evaluate[[]string](t, ctx, `[...document.querySelectorAll("#layer-plot svg text")].map(e => e.textContent)`); !slices.Contains(texts, c.axis) {
			t.Errorf("%s: no axis label %q among %q", c.example, c.axis, texts)
		}
		marks := evaluate[[]string](t, ctx, `[...document.querySelectorAll("#layer-plot svg line.transition title")].map(e => e.textContent)`)
		if len(want) == 0 || !slices.Equal(marks, want) {
			t.Errorf("%s: plot marks %q, polyvol layercond's %s transitions are %q", c.example, marks, c.layer, want)
		}
		overlaps := evaluate[[]string](t, ctx, `(() => {
			const boxes = [...document.querySelectorAll("#layer-plot svg text")].map(e => [e.textContent, e.getBoundingClientRect()]);
			const out = [];
			boxes.forEach(([a, p], i) => boxes.slice(i + 1).forEach(([b, q]) => {
				if (p.left < q.right && q.left < p.right && p.top < q.bottom && q.top < p.bottom) out.push(a + " / " + b);
			}));
			return out;
		})()`)
		if len(overlaps) > 0 {
			t.Errorf("%s: labels overlap: %q", c.example, overlaps)
		}
		saveScreenshot(t, ctx, "serve-layercond-"+c.example+".png")
	}
}

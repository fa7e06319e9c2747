package swimlane

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/hbgkit/hbgkit/internal/browsertest"
	"github.com/hbgkit/hbgkit/internal/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// browser starts a headless Chromium with a fresh profile and returns a
// tab context, the page's console errors and exceptions, and the URLs it
// requested. The test is skipped only when no Chromium is installed.
func browser(t *testing.T, width, height int) (context.Context, func() []string, func() []string) {
	t.Helper()
	path := browsertest.Path()
	if path == "" {
		t.Skip("chromium is not installed (Debian: apt-get install chromium)")
	}
	ctx := browsertest.Start(t, path, width, height)

	var mu sync.Mutex
	var errs, reqs []string
	chromedp.ListenTarget(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError || e.Type == runtime.APITypeAssert {
				var parts []string
				for _, a := range e.Args {
					parts = append(parts, string(a.Value))
				}
				errs = append(errs, "console."+string(e.Type)+": "+strings.Join(parts, " "))
			}
		case *runtime.EventExceptionThrown:
			errs = append(errs, "exception: "+e.ExceptionDetails.Error())
		case *network.EventRequestWillBeSent:
			reqs = append(reqs, e.Request.URL)
		}
	})
	require.NoError(t, chromedp.Run(ctx, network.Enable(), runtime.Enable(), chromedp.EmulateViewport(int64(width), int64(height))))
	get := func(p *[]string) func() []string {
		return func() []string {
			mu.Lock()
			defer mu.Unlock()
			return append([]string(nil), *p...)
		}
	}
	return ctx, get(&errs), get(&reqs)
}

func viewOf(t *testing.T, ctx context.Context) [2]float64 {
	t.Helper()
	var v []float64
	require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`window.hbgSwimlane.view()`, &v)))
	require.Len(t, v, 2)
	return [2]float64{v[0], v[1]}
}

// settle waits for the viewer's next animation frame to have rendered.
func settle(ctx context.Context) error {
	var ok bool
	return chromedp.Run(ctx, chromedp.Evaluate(`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`,
		&ok, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
}

// TestHTMLInBrowser opens the page of the gaps fixture in headless
// Chromium and uses it as a person would.
func TestHTMLInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	ctx, consoleErrors, requests := browser(t, 1300, 330)
	l, passes := gapsFixture(t)
	page := htmlOf(t, l, passes, HTMLOptions{Title: "swimlane/testdata/gaps/run.log", Gaps: true,
		Round: func(pid int64, inv uint64) (int, bool) { return int(inv) - 1, true }})
	d := pageData(t, page)
	file := filepath.Join(t.TempDir(), "sw.html")
	require.NoError(t, os.WriteFile(file, page, 0o644))
	url := "file://" + file

	var lanes, spans, gaps int
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(url),
		chromedp.WaitReady("#lanes rect.span", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll("#lanes .lane-label").length`, &lanes),
		chromedp.Evaluate(`document.querySelectorAll("#lanes rect.span, #lanes rect.cluster").length`, &spans),
		chromedp.Evaluate(`document.querySelectorAll("#lanes rect.gap").length`, &gaps),
	))
	require.NoError(t, settle(ctx))
	assert.Equal(t, len(d.Lanes), lanes, "one row per lane")
	assert.Positive(t, spans)
	assert.Equal(t, 2, gaps, "the two injected gaps are drawn")

	t.Run("tooltip on hover", func(t *testing.T) {
		// The first bind's host_orch: a wide span in the whole-log view.
		var box []float64
		require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`(() => {
			const names = JSON.parse(document.getElementById("swimlane-data").textContent).names;
			for (const r of document.querySelectorAll("#lanes rect.span")) {
				const i = +r.dataset.i, d = window.hbgSwimlane;
				const b = r.getBoundingClientRect();
				if (b.width > 20 && r.nextSibling && r.nextSibling.textContent === "host_orch") return [b.x + b.width/2, b.y + b.height/2];
			}
			return [];
		})()`, &box)))
		require.Len(t, box, 2, "a host_orch span on screen")
		var hidden bool
		var text string
		require.NoError(t, chromedp.Run(ctx,
			chromedp.MouseEvent(input.MouseMoved, box[0], box[1]),
			chromedp.Evaluate(`document.getElementById("tooltip").hidden`, &hidden),
			chromedp.Text("#tooltip", &text, chromedp.ByQuery),
		))
		assert.False(t, hidden)
		assert.Contains(t, text, "chip.run.bind.host_orch")
		assert.Contains(t, text, "duration 900.000 µs")
		assert.Contains(t, text, "src=host_phase_records")
		// Moving off the lanes hides it.
		require.NoError(t, chromedp.Run(ctx,
			chromedp.MouseEvent(input.MouseMoved, 5, 5),
			chromedp.Evaluate(`document.getElementById("tooltip").hidden`, &hidden)))
		assert.True(t, hidden)
	})

	t.Run("wheel, keys and drag change the view", func(t *testing.T) {
		before := viewOf(t, ctx)
		var c []float64 // a point on the lanes, right of the labels
		require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`(() => {
			const b = document.getElementById("lanes").getBoundingClientRect();
			return [b.x + 700, b.y + b.height/2];
		})()`, &c)))
		require.Len(t, c, 2)
		x, y := c[0], c[1]
		require.NoError(t, chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error {
			return input.DispatchMouseEvent(input.MouseWheel, x, y).WithDeltaY(-400).Do(ctx)
		})))
		require.NoError(t, settle(ctx))
		wheel := viewOf(t, ctx)
		assert.Less(t, wheel[1]-wheel[0], (before[1]-before[0])*0.7, "wheel up zooms in")

		require.NoError(t, chromedp.Run(ctx, chromedp.KeyEvent("w")))
		require.NoError(t, settle(ctx))
		key := viewOf(t, ctx)
		assert.InDelta(t, (wheel[1]-wheel[0])*0.7, key[1]-key[0], 1, "w zooms in by 0.7")

		require.NoError(t, chromedp.Run(ctx,
			chromedp.MouseEvent(input.MousePressed, x+200, y, chromedp.ButtonLeft),
			chromedp.MouseEvent(input.MouseMoved, x, y, chromedp.ButtonLeft),
			chromedp.MouseEvent(input.MouseReleased, x, y, chromedp.ButtonLeft),
		))
		require.NoError(t, settle(ctx))
		dragged := viewOf(t, ctx)
		assert.InDelta(t, key[1]-key[0], dragged[1]-dragged[0], 1, "a drag keeps the width")
		assert.Greater(t, dragged[0], key[0], "dragging left moves later in time")

		require.NoError(t, chromedp.Run(ctx, chromedp.KeyEvent("0")))
		require.NoError(t, settle(ctx))
		assert.Equal(t, before, viewOf(t, ctx), "0 shows the whole log again")
	})

	t.Run("the bind selector moves the view", func(t *testing.T) {
		var opts int
		require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`document.querySelectorAll("#bind option").length`, &opts)))
		assert.Equal(t, 1+len(d.Binds), opts)
		for i, b := range d.Binds {
			require.NoError(t, chromedp.Run(ctx,
				chromedp.SetValue("#bind", fmt.Sprint(i), chromedp.ByQuery),
				chromedp.Evaluate(`document.getElementById("bind").dispatchEvent(new Event("change"))`, nil)))
			require.NoError(t, settle(ctx))
			v := viewOf(t, ctx)
			assert.LessOrEqual(t, v[0], float64(b.Ts))
			assert.GreaterOrEqual(t, v[1], float64(b.Ts+b.Dur))
			assert.Less(t, v[1]-v[0], float64(b.Dur)*1.1, "the view is the bind's window")
		}
	})

	t.Run("screenshot of a bind is not blank", func(t *testing.T) {
		var shot []byte
		require.NoError(t, chromedp.Run(ctx,
			chromedp.SetValue("#bind", "0", chromedp.ByQuery),
			chromedp.Evaluate(`document.getElementById("bind").dispatchEvent(new Event("change"))`, nil)))
		require.NoError(t, settle(ctx))
		var sel string
		require.NoError(t, chromedp.Run(ctx,
			chromedp.MouseEvent(input.MouseMoved, 5, 5),
			chromedp.Evaluate(`document.getElementById("bind").selectedOptions[0].textContent`, &sel),
			chromedp.CaptureScreenshot(&shot)))
		assert.Contains(t, sel, "round 0: pid=9 inv=1")
		img, err := png.Decode(bytes.NewReader(shot))
		require.NoError(t, err)
		colors := make(map[uint32]bool)
		nonWhite, all := 0, 0
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y += 2 {
			for x := b.Min.X; x < b.Max.X; x += 2 {
				r, g, bl, _ := img.At(x, y).RGBA()
				colors[(r>>8)<<16|(g>>8)<<8|bl>>8] = true
				if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
					nonWhite++
				}
				all++
			}
		}
		assert.Greater(t, len(colors), 20, "many colours")
		assert.Greater(t, float64(nonWhite)/float64(all), 0.05, "more than 5%% of the page is drawn")
		if golden.Update() {
			require.Less(t, len(shot), 200_000, "the committed screenshot stays small")
			require.NoError(t, os.WriteFile("../docs/swimlanes.png", shot, 0o644))
		}
	})

	assert.Empty(t, consoleErrors(), "no console error")
	for _, u := range requests() {
		assert.True(t, strings.HasPrefix(u, "file://") || strings.HasPrefix(u, "data:"), "requested %s", u)
	}
}

// TestHTMLInBrowserLarge loads 100,000 spans: the page draws only what is
// in view, so the DOM stays bounded by the screen, not by the log.
func TestHTMLInBrowserLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	ctx, consoleErrors, _ := browser(t, 1200, 700)
	page := htmlOf(t, synthLog(100_000, 10), nil, HTMLOptions{Title: "100k spans"})
	file := filepath.Join(t.TempDir(), "big.html")
	require.NoError(t, os.WriteFile(file, page, 0o644))
	var n, shapes, dom int
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate("file://"+file),
		chromedp.WaitReady("#lanes rect", chromedp.ByQuery),
		chromedp.Evaluate(`window.hbgSwimlane.spans`, &n),
		chromedp.Evaluate(`window.hbgSwimlane.shapes()`, &shapes),
		chromedp.Evaluate(`document.querySelectorAll("#lanes rect.span, #lanes rect.cluster").length`, &dom),
	))
	assert.Equal(t, 100_000, n)
	assert.Equal(t, shapes, dom)
	assert.Less(t, dom, 20*1200, "at most one shape per pixel column and row")
	// Zoomed to 1% of the log, only that part is drawn.
	var v []float64
	require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`window.hbgSwimlane.view()`, &v)))
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Evaluate(fmt.Sprintf(`window.hbgSwimlane.setView(%f, %f)`, v[1]*0.5, v[1]*0.51), nil),
		chromedp.Evaluate(`document.querySelectorAll("#lanes rect.span").length`, &dom)))
	assert.Positive(t, dom)
	assert.Less(t, dom, 100_000/50, "zoomed in, about 1% of the spans are in the DOM")
	assert.Empty(t, consoleErrors())
}

package lab

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// A script is a hand-written chromedp program doing one suite task on the
// portal the way a careful author would: each page loaded before it is
// used, each click that navigates waited on until the next page loads, a
// field filled as a person types a paste (focus, then one insertText, as
// Playwright's fill), the download waited on until the browser has it,
// and the page's own words checked at the end. It knows the portal's
// markup (ids, form actions); it runs in a fresh browser context, as a
// replay does, and returns the task's answer (a read task's).
type script func(ctx context.Context, base string, p map[string]string) (string, error)

// scripts are the hand-written programs by suite task.
var scripts = map[string]script{
	"B1": downloadLatestScript,
	"B2": registerVendorScript,
	"B3": catalogTopScript,
}

// fill focuses the element sel names, empties it and types value into
// it at once.
func fill(sel, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(sel)), onElement(sel, `e => { e.focus(); e.value = ''; }`)); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, input.InsertText, input.InsertTextParams{Text: value})
		return err
	})
}

// choose picks the option of the select sel names whose value is value,
// as a person's choice does: the select's change event fires.
func choose(sel, value string) chromedp.Action[chromedp.Void] {
	return onElement(sel, fmt.Sprintf(`e => { e.value = %q; e.dispatchEvent(new Event('change', {bubbles: true})); }`, value))
}

// onElement runs fn on the first element sel names.
func onElement(sel, fn string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(%s)(document.querySelector(%q))`, fn, sel))
}

// signIn loads the sign-in page and signs in, waiting for the dashboard.
func signIn(ctx context.Context, base string, p map[string]string) error {
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/login"), fill("#username", p["username"]), fill("#password", p["password"])); err != nil {
		return err
	}
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`form[action="/login"] button[type=submit]`))); err != nil {
		return err
	}
	return expectURL(ctx, "/dashboard")
}

// expectURL fails unless the page's address contains part.
func expectURL(ctx context.Context, part string) error {
	at, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		return err
	}
	if !strings.Contains(at, part) {
		return fmt.Errorf("the page is %s, want one at %s", at, part)
	}
	return nil
}

// expectText fails unless the page's main text contains text.
func expectText(ctx context.Context, text string) error {
	got, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("main")))
	if err != nil {
		return err
	}
	if !strings.Contains(got, text) {
		return fmt.Errorf("the page does not say %q", text)
	}
	return nil
}

// downloadLatestScript is B1: sign in, open the reports, download the
// first (newest) report, and wait for the browser to finish the download.
func downloadLatestScript(ctx context.Context, base string, p map[string]string) (string, error) {
	dir, err := os.MkdirTemp("", "rote-script-download-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	done := make(chan struct{}, 1)
	if err := chromedp.ListenBrowser(ctx, func(ev any) {
		if e, ok := ev.(*browser.EventDownloadProgress); ok && e.State == browser.DownloadProgressStateCompleted {
			select {
			case done <- struct{}{}:
			default:
			}
		}
	}); err != nil {
		return "", err
	}
	if err := signIn(ctx, base, p); err != nil {
		return "", err
	}
	if _, err := chromedp.CallBrowser(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir, EventsEnabled: new(true), BrowserContextID: chromedp.FromContext(ctx).BrowserContextID}); err != nil {
		return "", err
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/reports"), chromedp.Click(chromedp.CSS(`main table tbody tr:first-child a[href$="/download"]`))); err != nil {
		return "", err
	}
	select {
	case <-done:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	return "", expectURL(ctx, "/reports")
}

// registerVendorScript is B2: the three-step vendor form.
func registerVendorScript(ctx context.Context, base string, p map[string]string) (string, error) {
	if err := signIn(ctx, base, p); err != nil {
		return "", err
	}
	next := chromedp.Click(chromedp.CSS(`form#vendor-form button[type=submit]`))
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/vendors/new"),
		fill("#company-name", p["company"]), fill("#tax-id", p["tax_id"]), fill("#email", p["email"]), fill("#phone", p["phone"])); err != nil {
		return "", err
	}
	if _, err := chromedp.RunResponse(ctx, next); err != nil {
		return "", err
	}
	if err := expectURL(ctx, "/vendors/new/address"); err != nil {
		return "", err
	}
	category := "#category-" + strings.ReplaceAll(strings.ToLower(p["category"]), " ", "-")
	if err := chromedp.Do(ctx, fill("#street", p["street"]), fill("#city", p["city"]),
		choose("#country", p["country"]), chromedp.Click(chromedp.CSS(category))); err != nil {
		return "", err
	}
	if _, err := chromedp.RunResponse(ctx, next); err != nil {
		return "", err
	}
	if err := expectURL(ctx, "/vendors/new/review"); err != nil {
		return "", err
	}
	if _, err := chromedp.RunResponse(ctx, next); err != nil {
		return "", err
	}
	return "", expectText(ctx, "Vendor "+p["company"]+" registered")
}

// catalogTopScript is B3: search the catalog and read the first n result
// names, in the page's order.
func catalogTopScript(ctx context.Context, base string, p map[string]string) (string, error) {
	if err := signIn(ctx, base, p); err != nil {
		return "", err
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/catalog"), fill("#catalog-q", p["query"])); err != nil {
		return "", err
	}
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`form[action="/catalog"] button[type=submit]`))); err != nil {
		return "", err
	}
	if err := expectText(ctx, "results for “"+p["query"]+"”"); err != nil {
		return "", err
	}
	n, err := strconv.Atoi(p["n"])
	if err != nil {
		return "", err
	}
	names, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](fmt.Sprintf(`[...document.querySelectorAll('main h2 a')].slice(0, %d).map(a => a.textContent.trim())`, n)))
	return strings.Join(names, "\n"), err
}

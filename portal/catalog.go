package portal

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// catalogData is the data of /catalog.
type catalogData struct {
	Query   string
	Summary string
	Results []product
}

// searchProducts returns the products whose name or category contains q,
// case-insensitively (all of them for an empty q), by rating, best first,
// then by name.
func searchProducts(q string) []product {
	q = strings.ToLower(strings.TrimSpace(q))
	var out []product
	for _, p := range products {
		if strings.Contains(strings.ToLower(p.Name), q) || strings.Contains(strings.ToLower(p.Category), q) {
			out = append(out, p)
		}
	}
	slices.SortStableFunc(out, func(a, b product) int {
		if c := cmp.Compare(b.RatingTenths, a.RatingTenths); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	return out
}

// resultSummary is the status line of a search: "3 results for “desk”".
func resultSummary(n int, q string) string {
	if q == "" {
		return fmt.Sprintf("Showing all %d products", n)
	}
	noun := "results"
	if n == 1 {
		noun = "result"
	}
	return fmt.Sprintf("%d %s for “%s”", n, noun, q)
}

// catalog serves GET /catalog?q=...
func (p *Portal) catalog(w http.ResponseWriter, r *http.Request, s *session) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	res := searchProducts(q)
	p.render(w, s, http.StatusOK, "catalog", view{Title: "Catalog", Section: "/catalog",
		Data: catalogData{Query: q, Summary: resultSummary(len(res), q), Results: res}})
}

// productDetail serves GET /catalog/{sku}.
func (p *Portal) productDetail(w http.ResponseWriter, r *http.Request, s *session) {
	prod, ok := findProduct(r.PathValue("sku"))
	if !ok {
		p.notFound(w, r, s)
		return
	}
	p.render(w, s, http.StatusOK, "product", view{Title: prod.Name, Section: "/catalog", Data: prod})
}

// addToCart serves POST /catalog/{sku}/cart: the SKU joins the cart
// (State.Cart), and the browser goes back where it came from (the product page when the form's
// from field says so, else the search it was on) with the status
// "Added <name> to cart".
func (p *Portal) addToCart(w http.ResponseWriter, r *http.Request, s *session) {
	prod, ok := findProduct(r.PathValue("sku"))
	if !ok {
		p.notFound(w, r, s)
		return
	}
	p.st.Cart = append(p.st.Cart, prod.SKU)
	s.flash = "Added " + prod.Name + " to cart"
	target := "/catalog"
	switch q := strings.TrimSpace(r.PostFormValue("q")); {
	case r.PostFormValue("from") == "product":
		target = "/catalog/" + url.PathEscape(prod.SKU)
	case q != "":
		target += "?" + url.Values{"q": {q}}.Encode()
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}

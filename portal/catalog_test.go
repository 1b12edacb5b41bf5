package portal

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

var resultHeading = regexp.MustCompile(`<article[^>]*>\s*<h2><a href="/catalog/(SKU-[0-9]{3})">([^<]+)</a></h2>`)

// resultSKUs lists the SKUs of the result articles in page order.
func resultSKUs(body string) []string {
	var out []string
	for _, m := range resultHeading.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestCatalogSeed(t *testing.T) {
	if len(products) != 60 {
		t.Fatalf("%d products", len(products))
	}
	names := map[string]bool{}
	for _, p := range products {
		if names[p.Name] {
			t.Errorf("duplicate product %q", p.Name)
		}
		names[p.Name] = true
		if p.RatingTenths < 10 || p.RatingTenths > 50 {
			t.Errorf("%s rating %s", p.SKU, p.Rating())
		}
	}
}

func TestCatalogSearch(t *testing.T) {
	b := loggedIn(t, "")
	pg := b.get("/catalog?q=desk")
	pg.mustContain(t, "<search", `<label for="catalog-q">Search catalog</label>`, `type="search" id="catalog-q" name="q" value="desk"`,
		`>Search</button>`, `<p role="status" class="summary">2 results for “desk”</p>`)
	got := resultSKUs(pg.body)
	if len(got) != 2 {
		t.Fatalf("desk: %v", got)
	}
	for _, sku := range got {
		p, _ := findProduct(sku)
		if !strings.Contains(strings.ToLower(p.Name), "desk") {
			t.Errorf("desk matched %s", p.Name)
		}
	}
	if n := count(pg.body, ">Add to cart</button>"); n != 2 {
		t.Errorf("%d Add to cart buttons", n)
	}

	// A category matches case-insensitively; order is rating desc, then name.
	pg = b.get("/catalog?q=KITCHEN")
	pg.mustContain(t, "10 results for “KITCHEN”")
	skus := resultSKUs(pg.body)
	if len(skus) != 10 {
		t.Fatalf("kitchen: %d results", len(skus))
	}
	for i := 1; i < len(skus); i++ {
		a, _ := findProduct(skus[i-1])
		c, _ := findProduct(skus[i])
		if a.Category != "Kitchen" || a.RatingTenths < c.RatingTenths || (a.RatingTenths == c.RatingTenths && a.Name > c.Name) {
			t.Errorf("out of order: %s (%s) before %s (%s)", a.Name, a.Rating(), c.Name, c.Rating())
		}
	}
	first, _ := findProduct(skus[0])
	pg.mustContain(t, "<dt>Rating</dt><dd>"+first.Rating()+" out of 5</dd>", "<dt>Price</dt><dd>"+first.Price()+"</dd>")

	pg = b.get("/catalog?q=" + url.QueryEscape("desk lamp"))
	pg.mustContain(t, "1 result for “desk lamp”")
	pg = b.get("/catalog?q=zzz")
	pg.mustContain(t, "0 results for “zzz”")
	if n := len(resultSKUs(pg.body)); n != 0 {
		t.Errorf("zzz: %d results", n)
	}
}

func TestCatalogAllAndOrder(t *testing.T) {
	b := loggedIn(t, "")
	pg := b.get("/catalog")
	pg.mustContain(t, "Showing all 60 products")
	skus := resultSKUs(pg.body)
	if len(skus) != 60 {
		t.Fatalf("%d results for an empty query", len(skus))
	}
	want := searchProducts("")
	ties := 0
	for i, p := range want {
		if skus[i] != p.SKU {
			t.Fatalf("result %d is %s, want %s", i, skus[i], p.SKU)
		}
		if i > 0 && want[i-1].RatingTenths == p.RatingTenths {
			ties++
		}
	}
	if ties == 0 {
		t.Error("the seed has no rating ties, so the name order is untested")
	}
	if want[0].RatingTenths != 50 {
		t.Errorf("best rating %s, want 5.0", want[0].Rating())
	}
}

func TestAddToCartAndProduct(t *testing.T) {
	b := loggedIn(t, "")
	p := products[1]
	pg := b.post("/catalog/"+p.SKU+"/cart", url.Values{"q": {"desk"}})
	if pg.url != "/catalog?q=desk" {
		t.Errorf("add to cart went to %s", pg.url)
	}
	pg.mustContain(t, `<div role="status"`, "Added "+p.Name+" to cart", "2 results for “desk”")

	pg = b.get("/catalog/" + p.SKU)
	pg.mustContain(t, "<h1>"+p.Name+"</h1>", "<dt>SKU</dt><dd>"+p.SKU+"</dd>", `>Add to cart</button>`)
	pg = b.post("/catalog/"+p.SKU+"/cart", url.Values{"from": {"product"}})
	if pg.url != "/catalog/"+p.SKU {
		t.Errorf("add to cart from the product went to %s", pg.url)
	}
	pg.mustContain(t, "Added "+p.Name+" to cart")
	if got := b.p.State().Cart; fmt.Sprint(got) != fmt.Sprint([]string{p.SKU, p.SKU}) {
		t.Errorf("cart %v, want %s twice", got, p.SKU)
	}
}

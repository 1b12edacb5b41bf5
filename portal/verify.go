package portal

// Message is an inbox message as a verifier sees it.
type Message struct {
	ID       string // M-01 to M-12
	Subject  string
	Body     string
	Category string // the category its body calls for
}

// Messages returns the seeded inbox messages in inbox order.
func Messages() []Message {
	out := make([]Message, len(messages))
	for i, m := range messages {
		out[i] = Message{ID: m.ID, Subject: m.Subject, Body: m.Body, Category: m.Category}
	}
	return out
}

// TopResults returns the names of the first n products a catalog search
// for q lists, in the order it lists them.
func TopResults(q string, n int) []string {
	var out []string
	for _, p := range searchProducts(q) {
		if len(out) == n {
			break
		}
		out = append(out, p.Name)
	}
	return out
}

// Item is a seeded catalog product or record as a verifier sees it: its
// id (SKU-001, R-1001) and its name.
type Item struct{ ID, Name string }

// Products returns the seeded catalog products, SKU-001 first.
func Products() []Item {
	out := make([]Item, len(products))
	for i, p := range products {
		out[i] = Item{ID: p.SKU, Name: p.Name}
	}
	return out
}

// Records returns the seeded records, R-1001 first (the first page of
// the records list).
func Records() []Item {
	out := make([]Item, len(records))
	for i, r := range records {
		out[i] = Item{ID: r.ID, Name: r.Name}
	}
	return out
}

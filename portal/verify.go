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

package bustest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/rote-agent/rote/bus"
	"golang.org/x/text/cases"
	"golang.org/x/text/language"
	"golang.org/x/text/unicode/norm"
)

// Scanned is what ScanForSecret read.
type Scanned struct {
	Messages, Blobs, Bytes, Forms int
}

// ScanForSecret reads every message of ROTE_RUNS (its data and headers)
// and every object of ROTE_BLOBS on b, and fails the test wherever a form
// of secret appears (SecretForms). The forms are computed here, not by
// the code under test. An empty run log fails too: nothing would be proved.
func ScanForSecret(t testing.TB, b *bus.Bus, secret string) Scanned {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	needles := SecretForms(secret)
	var s Scanned
	s.Forms = len(needles)
	check := func(where string, data []byte) {
		for _, n := range needles {
			if bytes.Contains(data, n) {
				t.Errorf("%s holds the secret as %q", where, n)
			}
		}
		s.Bytes += len(data)
	}
	cons, err := b.JetStream().OrderedConsumer(ctx, bus.StreamRuns, jetstream.OrderedConsumerConfig{})
	if err != nil {
		t.Fatalf("bustest: %v", err)
	}
	info, err := cons.Info(ctx)
	if err != nil {
		t.Fatalf("bustest: %v", err)
	}
	for left := info.NumPending; left > 0; left-- {
		m, err := cons.Next(jetstream.FetchMaxWait(5 * time.Second))
		if err != nil {
			t.Fatalf("bustest: %v", err)
		}
		check(m.Subject(), m.Data())
		for k, v := range m.Headers() {
			for _, h := range v {
				check(m.Subject()+" header "+k, []byte(h))
			}
		}
		s.Messages++
	}
	store, err := b.JetStream().ObjectStore(ctx, bus.BucketBlobs)
	if err != nil {
		t.Fatalf("bustest: %v", err)
	}
	list, err := store.List(ctx)
	if err != nil && !errors.Is(err, jetstream.ErrNoObjectsFound) {
		t.Fatalf("bustest: %v", err)
	}
	for _, o := range list {
		data, err := store.GetBytes(ctx, o.Name)
		if err != nil {
			t.Fatalf("bustest: %v", err)
		}
		check("blob "+o.Name, data)
		s.Blobs++
	}
	if s.Messages == 0 {
		t.Fatal("bustest: the run log is empty: nothing was scanned")
	}
	return s
}

// Encoded is a secret as a page or a server shows it back.
type Encoded struct {
	How, Text string
}

// SecretEncodings are the forms a page or an MCP server commonly shows a
// secret in, written here and not taken from the code under test: in
// clear, in either case (ASCII's, and Unicode's where ß is SS), in
// fullwidth, and in Unicode normal forms (NFD, NFC, NFKD); with an
// invisible character or a space between its characters;
// URL-encoded (query, path, every byte in either case); base64 (both
// alphabets, padded or not, and inside a longer run at each byte
// offset); hex (both cases, and its bytes joined by : or a space); HTML
// entities (decimal, hex in either case)
// and JSON \u escapes (either case) of each character; as a JSON string
// holds it; and each of those but the runs encoded once more by any of
// them (the separated, fullwidth and joined-hex forms apart: shown as
// they are).
func SecretEncodings(secret string) []Encoded {
	b64 := func(enc *base64.Encoding) func(string) string {
		return func(s string) string { return enc.EncodeToString([]byte(s)) }
	}
	run := func(enc *base64.Encoding, offset int) func(string) string {
		return func(s string) string {
			return enc.EncodeToString([]byte(strings.Repeat("\x01", offset) + s + " and more"))
		}
	}
	each := func(format string) func(string) string {
		return func(s string) string {
			var b strings.Builder
			for _, c := range []byte(s) {
				fmt.Fprintf(&b, format, c)
			}
			return b.String()
		}
	}
	// Entities and \u escapes write characters (UTF-16 units), not bytes.
	eachUnit := func(format string) func(string) string {
		return func(s string) string {
			var b strings.Builder
			for _, u := range utf16.Encode([]rune(s)) {
				fmt.Fprintf(&b, format, u)
			}
			return b.String()
		}
	}
	between := func(sep string) func(string) string {
		return func(s string) string { return strings.Join(strings.Split(s, ""), sep) }
	}
	jsonString := func(s string) string {
		quoted, _ := json.Marshal(s)
		return string(quoted[1 : len(quoted)-1])
	}
	type encoding struct {
		how   string
		enc   func(string) string
		run   bool // holds more than what it encodes
		alone bool // shown as it is, not encoded once more nor over another
	}
	encodings := []encoding{
		{"lower case", strings.ToLower, false, false}, {"upper case", strings.ToUpper, false, false},
		{"Unicode upper case", cases.Upper(language.Und).String, false, false},
		{"fullwidth", func(s string) string {
			var b strings.Builder
			for _, r := range s {
				if r > ' ' && r <= '~' {
					r += 0xff01 - '!'
				}
				b.WriteRune(r)
			}
			return b.String()
		}, false, true},
		{"zero-width spaces between characters", between("\u200b"), false, true}, {"soft hyphens between characters", between("\u00ad"), false, true},
		{"spaces between characters", between(" "), false, true},
		{"hex bytes joined by :", func(s string) string { return strings.TrimSuffix(each("%02x:")(s), ":") }, false, true},
		{"HEX bytes joined by spaces", func(s string) string { return strings.TrimSuffix(each("%02X ")(s), " ") }, false, true},
		{"decomposed (NFD)", norm.NFD.String, false, false}, {"composed (NFC)", norm.NFC.String, false, false},
		{"compatibility-decomposed (NFKD)", norm.NFKD.String, false, false},
		{"query", url.QueryEscape, false, false}, {"path", url.PathEscape, false, false},
		{"every byte %XX", each("%%%02X"), false, false}, {"every byte %xx", each("%%%02x"), false, false},
		{"base64", b64(base64.StdEncoding), false, false}, {"unpadded base64", b64(base64.RawStdEncoding), false, false},
		{"base64url", b64(base64.URLEncoding), false, false}, {"unpadded base64url", b64(base64.RawURLEncoding), false, false},
		{"hex", each("%02x"), false, false}, {"HEX", each("%02X"), false, false},
		{"decimal entities", eachUnit("&#%d;"), false, false}, {"hex entities", eachUnit("&#x%x;"), false, false}, {"HEX entities", eachUnit("&#X%X;"), false, false},
		{`\u escapes`, eachUnit(`\u%04x`), false, false}, {`\U escapes`, eachUnit(`\u%04X`), false, false}, {"JSON string", jsonString, false, false},
	}
	var runs []encoding
	for offset := range 3 {
		runs = append(runs, encoding{fmt.Sprintf("in a base64 run at offset %d", offset), run(base64.StdEncoding, offset), true, false},
			encoding{fmt.Sprintf("in a base64url run at offset %d", offset), run(base64.URLEncoding, offset), true, false})
	}
	out := []Encoded{{"clear", secret}}
	for _, inner := range append(encodings, runs...) {
		once := inner.enc(secret)
		out = append(out, Encoded{inner.how, once})
		if inner.run || inner.alone {
			continue // a run holds more than the secret; alone is shown as it is
		}
		for _, outer := range append(encodings, runs...) {
			if outer.alone {
				continue
			}
			out = append(out, Encoded{outer.how + " of " + inner.how, outer.enc(once)})
		}
	}
	return out
}

// SecretForms are the forms of secret ScanForSecret looks for: every one
// of SecretEncodings.
func SecretForms(secret string) [][]byte {
	var forms [][]byte
	for _, e := range SecretEncodings(secret) {
		forms = append(forms, []byte(e.Text))
	}
	return forms
}

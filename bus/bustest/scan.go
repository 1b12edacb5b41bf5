package bustest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/url"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/rote-agent/rote/bus"
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

// SecretForms are the forms of secret ScanForSecret looks for: in clear,
// URL-encoded (query and path), base64 (standard and URL alphabets,
// padded or not), and each of those as a JSON string holds it.
func SecretForms(secret string) [][]byte {
	raw := []byte(secret)
	var forms [][]byte
	for _, f := range []string{secret, url.QueryEscape(secret), url.PathEscape(secret), base64.StdEncoding.EncodeToString(raw),
		base64.RawStdEncoding.EncodeToString(raw), base64.URLEncoding.EncodeToString(raw), base64.RawURLEncoding.EncodeToString(raw)} {
		quoted, _ := json.Marshal(f)
		forms = append(forms, []byte(f), quoted[1:len(quoted)-1])
	}
	return forms
}

package schema

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"testing"
)

func TestScrubFindsEveryForm(t *testing.T) {
	secret := `p@ss w0rd/"x"+&=`
	r := Redactor{Key: []byte("k"), Values: []string{secret, "abc"}}
	forms := map[string]string{
		"clear": secret, "query": url.QueryEscape(secret), "path": url.PathEscape(secret),
		"base64": base64.StdEncoding.EncodeToString([]byte(secret)), "base64url": base64.RawURLEncoding.EncodeToString([]byte(secret)),
	}
	for name, form := range forms {
		var plain bytes.Buffer
		enc := json.NewEncoder(&plain)
		enc.SetEscapeHTML(false)
		enc.Encode(map[string]string{"text": "before " + form + " after"})
		escaped, _ := json.Marshal(map[string]string{"text": "before " + form + " after"})
		for _, doc := range [][]byte{plain.Bytes(), escaped, []byte("GET /x?before " + form + " after")} {
			out, changed := r.Scrub(doc)
			if !changed || bytes.Contains(out, []byte(form)) || !bytes.Contains(out, []byte(r.Digest(secret))) || (json.Valid(doc) && !json.Valid(out)) {
				t.Errorf("%s: %s", name, out)
			}
		}
	}
	// Short values are not replaced inside other text ("abc" is three
	// letters of many words); text without a secret comes back as is.
	in := []byte(`{"text":"abcdef"}`)
	if out, changed := r.Scrub(in); changed || !bytes.Equal(out, in) {
		t.Errorf("short secret replaced: %s", out)
	}
}

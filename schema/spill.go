package schema

import "encoding/json"

// Blob is a payload moved out of an event into the blob store, under its
// digest.
type Blob struct {
	Digest string
	Data   []byte
}

// Spill moves every payload of ev over InlineLimit out of the event: a
// tool call's result and arguments, an unparsed line. Each leaves its
// digest behind as the blob ref. It returns the blobs to store before ev
// is published.
func Spill(ev Event) []Blob {
	var blobs []Blob
	spill := func(inline *[]byte, digest string, ref *string) {
		if len(*inline) > InlineLimit {
			blobs = append(blobs, Blob{Digest: digest, Data: *inline})
			*ref, *inline = digest, nil
		}
	}
	switch e := ev.(type) {
	case *ToolCall:
		if len(e.Result) > InlineLimit {
			e.ResultMeta = resultMeta(e.Result)
		}
		spill((*[]byte)(&e.Result), e.ResultDigest, &e.BlobRef)
		spill((*[]byte)(&e.Arguments), e.ArgumentsDigest, &e.ArgumentsRef)
	case *Unparsed:
		spill((*[]byte)(&e.Line), e.Digest, &e.BlobRef)
	}
	return blobs
}

// MetaLimit is the largest result _meta a tool call keeps inline beside
// a result in the blob store.
const MetaLimit = InlineLimit

// resultMeta is the _meta of an MCP tool call result, when it has one
// that fits MetaLimit.
func resultMeta(result []byte) RawJSON {
	var r struct {
		Meta json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(result, &r) != nil || len(r.Meta) == 0 || len(r.Meta) > MetaLimit || r.Meta[0] != '{' {
		return nil
	}
	return RawJSON(r.Meta)
}

// ResultMetaOf is the _meta of c's result: read from the result when it
// is inline, else the copy kept beside the blob.
func (c *ToolCall) ResultMetaOf() map[string]json.RawMessage {
	raw := []byte(c.ResultMeta)
	if len(c.Result) > 0 {
		var r struct {
			Meta json.RawMessage `json:"_meta"`
		}
		if json.Unmarshal(c.Result, &r) != nil {
			return nil
		}
		raw = r.Meta
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

package schema

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
		spill((*[]byte)(&e.Result), e.ResultDigest, &e.BlobRef)
		spill((*[]byte)(&e.Arguments), e.ArgumentsDigest, &e.ArgumentsRef)
	case *Unparsed:
		spill((*[]byte)(&e.Line), e.Digest, &e.BlobRef)
	}
	return blobs
}

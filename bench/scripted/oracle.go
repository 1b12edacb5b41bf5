package scripted

// Message is one chat message of a request.
type Message struct {
	Role    string
	Content string
}

// Request is what an oracle is asked: the messages and the tools the
// caller offers.
type Request struct {
	Messages  []Message
	Tools     []string // the names of the offered tools
	MaxTokens int      // 0: no limit
}

// Call is a tool call in an answer.
type Call struct {
	Name      string
	Arguments string // a JSON object
}

// Answer is an oracle's reply: text, or one tool call.
type Answer struct {
	Content string
	Call    *Call
}

// Oracle answers requests. It must find whatever it answers with in the
// request's text (element ids, values, message bodies): it stands in for
// a model, so the text it is sent is what it can know. An error is a
// request it cannot make sense of; the server answers it as a model
// would, with text that is no valid action.
type Oracle interface {
	Answer(Request) (Answer, error)
}

// OracleFunc adapts a function to Oracle.
type OracleFunc func(Request) (Answer, error)

// Answer calls f.
func (f OracleFunc) Answer(r Request) (Answer, error) { return f(r) }

package replay

//lint:file-ignore SA1019 roots and sampling are deprecated from protocol 2026-07-28, yet servers still list tools by them, and a replay declares what the recorded client did

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// clientOptions declare what caps name and no more. A replay has no
// model and no user: a server's sampling request fails, an elicitation
// is declined, and the roots are none.
func clientOptions(caps []string) *mcp.ClientOptions {
	opts := &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}
	for _, c := range caps {
		switch c {
		case "roots":
			opts.Capabilities.RootsV2 = &mcp.RootCapabilities{}
		case "sampling":
			opts.CreateMessageHandler = func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
				return nil, errors.New("a rote replay has no model to sample")
			}
		case "elicitation":
			opts.ElicitationHandler = func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
		}
	}
	return opts
}

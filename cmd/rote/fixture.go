package main

import (
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/rote-agent/rote/cmd/rote/cli"
	"github.com/rote-agent/rote/cmd/rote/node"
	"github.com/rote-agent/rote/portal"
	"github.com/spf13/cobra"
)

func newFixtureCommand(app *cli.App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "fixture",
		Short: "Serve the fixture sites Rote is tested and benchmarked on",
		Args:  cli.Args(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newFixtureServeCommand(app))
	return cmd
}

func newFixtureServeCommand(app *cli.App) *cobra.Command {
	var addr, variant string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the admin portal (login, records, vendor form, catalog, inbox, settings, reports)",
		Long: fmt.Sprintf(`serve runs the fixture admin portal until interrupted. Sign in as %s / %s.
GET /__state shows its server-side state as JSON; POST /__reset restores the seed.

--variant changes the site in one controlled way: %s.`, portal.Username, portal.Password, strings.Join(portal.Variants(), ", ")),
		Args: cli.Args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := portal.New(portal.Config{Variant: variant})
			if errors.Is(err, portal.ErrUnknownVariant) {
				return cli.Usagef("%v (variants: %s)", err, strings.Join(portal.Variants(), ", "))
			}
			if err != nil {
				return err
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return err
			}
			name := "baseline"
			if variant != "" {
				name = variant
			}
			fmt.Fprintf(app.Stdout, "portal (%s) on http://%s/\n", name, ln.Addr())
			return node.ServeUntilDone(cmd.Context(), ln, p)
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "address to listen on")
	cmd.Flags().StringVar(&variant, "variant", "", "one controlled change to the site (see above)")
	return cmd
}

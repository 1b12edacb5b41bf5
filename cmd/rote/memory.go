package main

import (
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/spf13/cobra"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/cmd/rote/cli"
	"github.com/rote-agent/rote/cmd/rote/view"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/tools"
)

func newMemoryCommand(app *cli.App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "memory",
		Short: "Show or forget what Rote learned about a site across task classes (site memory)",
		Long: `Site memory (tier 2) is what Rote learned about one site from the verified
runs of all its task classes: routines (step sequences several classes share,
such as signing in, each with the page it starts on and what it must show
after), facts (where a control on a page led, with the runs that showed it),
and the brief the agent reads, rendered from both. The distiller learns it
whenever a playbook is promoted; the agent reads it; nothing in it acts
unchecked, and none of it holds a secret.`,
		Args: cli.Args(cobra.NoArgs),
	}
	cmd.AddCommand(newMemoryShowCommand(app), newMemoryForgetCommand(app))
	return cmd
}

func newMemoryShowCommand(app *cli.App) *cobra.Command {
	var site string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show [--site URL] [--json]",
		Short: "Print a site's routines, facts and brief, each with the runs that support it; without --site, the sites that have memory",
		Args:  cli.Args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			b, err := app.Bus(cmd.Context())
			if err != nil {
				return err
			}
			if site == "" {
				fps, err := b.Sites().Sites(cmd.Context())
				if err != nil {
					return err
				}
				if asJSON {
					return view.JSON(app.Stdout, fps)
				}
				if len(fps) == 0 {
					fmt.Fprintln(app.Stdout, "no site memory yet: it is learned when a playbook is promoted")
				}
				for _, fp := range fps {
					fmt.Fprintln(app.Stdout, fp)
				}
				return nil
			}
			fp, err := siteFingerprint(site)
			if err != nil {
				return err
			}
			m, err := b.Sites().Site(cmd.Context(), fp)
			if err != nil {
				return err
			}
			checks, err := b.Runs().MemoryChecks(cmd.Context())
			if err != nil {
				return err
			}
			m.Distrust(checks)
			m.Brief = schema.RenderBrief(fp, m.Routines, m.Facts, time.Now().UTC())
			if asJSON {
				return view.JSON(app.Stdout, view.SiteMemoryJSON(m))
			}
			view.SiteMemory(app.Stdout, siteName(site), m)
			return nil
		},
	}
	cmd.Flags().StringVar(&site, "site", "", "the site: its address (http://host:port) or its fingerprint")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}

func newMemoryForgetCommand(app *cli.App) *cobra.Command {
	var site string
	cmd := &cobra.Command{
		Use:   "forget --site URL routine|fact NAME",
		Short: "Forget a routine or a fact of a site's memory: it stays forgotten until a run newer than this shows it again (its versions stay in the store's history)",
		Args:  cli.Args(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, a []string) error {
			kind := schema.MemoryKind(a[0])
			switch {
			case kind == schema.MemoryBrief:
				return cli.Usagef("the brief is rendered from the routines and facts the site trusts: forget those")
			case kind != schema.MemoryRoutine && kind != schema.MemoryFact:
				return cli.Usagef("kind %q: want routine or fact", a[0])
			case schema.MemoryName(a[1]) != a[1]:
				return cli.Usagef("name %q: a memory item's name is lower case words joined by hyphens, as rote memory show prints it", a[1])
			}
			if site == "" {
				return cli.Usagef("--site is required")
			}
			fp, err := siteFingerprint(site)
			if err != nil {
				return err
			}
			b, err := app.Bus(cmd.Context())
			if err != nil {
				return err
			}
			if err := b.Sites().Forget(cmd.Context(), fp, kind, a[1]); errors.Is(err, bus.ErrMemoryNotFound) {
				return schema.Errorf(schema.CodeNotFound, "%s has no %s %q in its memory (rote memory show --site %s lists what it has)", siteName(site), kind, a[1], site)
			} else if err != nil {
				return err
			}
			fmt.Fprintf(app.Stdout, "forgot %s %s of %s: it stays forgotten until a run newer than this shows it again\n", kind, a[1], siteName(site))
			return nil
		},
	}
	cmd.Flags().StringVar(&site, "site", "", "the site: its address (http://host:port) or its fingerprint")
	return cmd
}

// siteFingerprint is the fingerprint of a browser site given by its
// address, or the fingerprint itself.
func siteFingerprint(site string) (string, error) {
	if schema.ValidateFingerprint(site) == nil {
		return site, nil
	}
	u, err := url.Parse(site)
	if err != nil || schema.Origin(u) == "" {
		return "", schema.Errorf(schema.CodeInvalid, "site %q: want an address such as http://127.0.0.1:8080, or a fingerprint", site)
	}
	return schema.Fingerprint(tools.BrowserEnvironment(schema.Origin(u)))
}

// siteName is how output names the site: its origin, never what else
// the address held (a user and password).
func siteName(site string) string {
	if u, err := url.Parse(site); err == nil && schema.Origin(u) != "" {
		return schema.Origin(u)
	}
	return site
}

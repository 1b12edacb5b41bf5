package main

import (
	"fmt"

	"github.com/rote-agent/rote/cmd/rote/cli"
	"github.com/rote-agent/rote/cmd/rote/runlog"
	"github.com/rote-agent/rote/cmd/rote/view"
	"github.com/rote-agent/rote/schema"
	"github.com/spf13/cobra"
)

func newPlaybooksCommand(app *cli.App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "playbooks",
		Short: "Manage the playbook store, ROTE_PLAYBOOKS",
		Long: `Playbooks are stored by fingerprint and name; every change is a new version,
kept in the key's history (the newest 64). A playbook without a fingerprint is
stored as unbound: it can be replayed by name, and the matcher never chooses it.`,
		Args: cli.Args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newPlaybooksListCommand(app), newPlaybooksShowCommand(app), newPlaybooksHistoryCommand(app),
		newPlaybooksImportCommand(app), newPlaybooksRollbackCommand(app), newPlaybooksMigrateCommand(app))
	return cmd
}

func newPlaybooksListCommand(app *cli.App) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the latest version of every playbook",
		Args:  cli.Args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			b, err := app.Bus(cmd.Context())
			if err != nil {
				return err
			}
			list, err := b.Playbooks().List(cmd.Context())
			if err != nil {
				return err
			}
			rows, err := view.PlaybookRows(list)
			if err != nil {
				return err
			}
			if asJSON {
				return view.JSON(app.Stdout, rows)
			}
			return view.PlaybookTable(app.Stdout, rows)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newPlaybooksShowCommand(app *cli.App) *cobra.Command {
	var version uint64
	var fingerprint, output string
	cmd := &cobra.Command{
		Use:   "show NAME",
		Short: "Show a playbook: a summary, or its YAML with -o yaml",
		Args:  cli.Args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			if output != "" && output != "yaml" {
				return cli.Usagef("-o %q: want yaml", output)
			}
			b, fp, err := app.StoredPlaybook(cmd.Context(), a[0], fingerprint)
			if err != nil {
				return err
			}
			e, err := b.Playbooks().Get(cmd.Context(), fp, a[0], version)
			if err != nil {
				return err
			}
			if output == "yaml" {
				_, err := app.Stdout.Write(e.Stored.Document)
				return err
			}
			p, err := e.Decode()
			if err != nil {
				return err
			}
			view.Playbook(app.Stdout, e, p)
			return nil
		},
	}
	cmd.Flags().Uint64Var(&version, "version", 0, "the version to show (default the latest)")
	cmd.Flags().StringVar(&fingerprint, "fingerprint", "", "the fingerprint, when the name exists under several")
	cmd.Flags().StringVarP(&output, "output", "o", "", "yaml: print the playbook document")
	return cmd
}

func newPlaybooksHistoryCommand(app *cli.App) *cobra.Command {
	var fingerprint string
	cmd := &cobra.Command{
		Use:   "history NAME",
		Short: "List the kept versions of a playbook",
		Args:  cli.Args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			b, fp, err := app.StoredPlaybook(cmd.Context(), a[0], fingerprint)
			if err != nil {
				return err
			}
			hist, err := b.Playbooks().History(cmd.Context(), fp, a[0])
			if err != nil {
				return err
			}
			return view.History(app.Stdout, hist)
		},
	}
	cmd.Flags().StringVar(&fingerprint, "fingerprint", "", "the fingerprint, when the name exists under several")
	return cmd
}

func newPlaybooksImportCommand(app *cli.App) *cobra.Command {
	return &cobra.Command{
		Use:   "import FILE",
		Short: "Validate a playbook file and store it as a new version",
		Args:  cli.Args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			p, err := cli.ReadPlaybookFile(a[0])
			if err != nil {
				return err
			}
			b, err := app.Bus(cmd.Context())
			if err != nil {
				return err
			}
			e, err := b.Playbooks().Put(cmd.Context(), p, "import", a[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(app.Stdout, "imported %s as version %d under %s\n", e.Name, e.Stored.Version, e.Fingerprint)
			return nil
		},
	}
}

func newPlaybooksRollbackCommand(app *cli.App) *cobra.Command {
	var to uint64
	var fingerprint string
	cmd := &cobra.Command{
		Use:   "rollback NAME --to N",
		Short: "Store version N again as the newest version (nothing is deleted)",
		Args:  cli.Args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			if to == 0 {
				return cli.Usagef("rollback needs --to VERSION")
			}
			b, fp, err := app.StoredPlaybook(cmd.Context(), a[0], fingerprint)
			if err != nil {
				return err
			}
			e, err := b.Playbooks().Rollback(cmd.Context(), fp, a[0], to)
			if err != nil {
				return err
			}
			fmt.Fprintf(app.Stdout, "%s: version %d is version %d again\n", e.Name, e.Stored.Version, to)
			return nil
		},
	}
	cmd.Flags().Uint64Var(&to, "to", 0, "the version to bring back")
	cmd.Flags().StringVar(&fingerprint, "fingerprint", "", "the fingerprint, when the name exists under several")
	return cmd
}

func newPlaybooksMigrateCommand(app *cli.App) *cobra.Command {
	return &cobra.Command{
		Use:   "migrate",
		Short: "Rebind playbooks learned under an older fingerprint of the same environment",
		Long: `An environment's fingerprint changes with its tools. Two changes left what
every playbook does as it was: fingerprints of MCP servers no longer include
the protocol version the recording client negotiated, and the browser gained
the drag and set_value actions. A playbook promoted before is still replayed
(with a warning), but the matcher does not find it for the new fingerprint.
migrate moves each such playbook, with its whole history, to the fingerprint
its environment has now: a server's as the inventories in the run log record
it, a browser site's as the runs started on it do.`,
		Args: cli.Args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			b, err := app.Bus(ctx)
			if err != nil {
				return err
			}
			rebind, err := runlog.Rebindings(ctx, b.Runs())
			if err != nil {
				return err
			}
			all, err := b.Playbooks().List(ctx)
			if err != nil {
				return err
			}
			moved := 0
			for _, e := range all {
				to, ok := rebind[e.Fingerprint]
				if !ok {
					continue
				}
				note := "rebound from fingerprint " + schema.ShortFingerprint(e.Fingerprint) + ", an older fingerprint of the same environment"
				n, err := b.Playbooks().Rebind(ctx, e.Fingerprint, to, e.Name, note)
				if err != nil {
					return err
				}
				moved++
				fmt.Fprintf(app.Stdout, "%s: %s -> %s (version %d)\n", e.Name, schema.ShortFingerprint(e.Fingerprint), schema.ShortFingerprint(to), n.Stored.Version)
			}
			fmt.Fprintf(app.Stdout, "%d playbook(s) rebound\n", moved)
			return nil
		},
	}
}

// Package cli is what every rote command shares: the process's settings
// and streams, its bus opened on first use (closing the runs of dead
// processes when it takes the store over), the node configuration a
// command starts services with, flag parsing, finding a playbook by file
// or stored name, and exit codes carried by errors (ExitError: a usage
// error exits 2, any other failure 1). Package main holds the command
// tree; package lab adds the suites' commands with it.
package cli

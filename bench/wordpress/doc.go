// Package wordpress is the benchmark's real web application: WordPress 6.1
// from Debian's packages, on MariaDB and Apache, installed and seeded by
// scripts/wordpress (120 posts, 100 per page) and served on
// http://127.0.0.1:8090. Here it is restored to its seeded state before
// every run and read by SQL for the independent verifier.
package wordpress

//go:build !linux

package chromium

import "syscall"

// procAttr is the default elsewhere: only Linux can tie a child's life
// to its parent's.
func procAttr() *syscall.SysProcAttr { return nil }

package chromium

import "syscall"

// procAttr makes a launched browser die with the process that launched
// it, even a killed one (SIGKILL leaves no chance to clean up): an
// orphaned Chromium would keep running, holding memory and CPU.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

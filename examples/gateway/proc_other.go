//go:build !unix

package main

import "os/exec"

// ownGroup does nothing on systems without process groups.
func ownGroup(cmd *exec.Cmd) {}

// killGroup does nothing on systems without process groups (the child itself is
// stopped by os/exec).
func killGroup(pid int) {}

// termGroup does nothing on systems without process groups.
func termGroup(pid int) {}

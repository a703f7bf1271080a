// Package testkit holds what the catalog server's tests in more than one
// package share. Only tests import it.
package testkit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/jackc/pgx/v5"
)

// Unreadable is a set of folders that Walk fails to read, as a folder of
// another user, or lost+found, fails for a server not run as root. Its zero
// value is empty and ready.
type Unreadable struct{ paths sync.Map }

// Add has Walk fail to read the folder path.
func (u *Unreadable) Add(path string) { u.paths.Store(path, true) }

// Remove has Walk read the folder path again.
func (u *Unreadable) Remove(path string) { u.paths.Delete(path) }

// Walk is filepath.WalkDir, but a folder in u is walked as WalkDir walks a
// folder it cannot read: fn is called for it, then again with the error,
// and none of its entries is walked.
func (u *Unreadable) Walk(root string, fn fs.WalkDirFunc) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if _, ok := u.paths.Load(path); !ok || err != nil || d == nil || !d.IsDir() {
			return fn(path, d, err)
		}
		if err := fn(path, d, nil); err != nil {
			return err
		}
		if err := fn(path, d, &fs.PathError{Op: "open", Path: path, Err: syscall.EACCES}); err != nil && !errors.Is(err, filepath.SkipDir) {
			return err
		}
		return filepath.SkipDir
	})
}

// PGWrite runs a test's fixture statements on conn in one transaction begun
// READ WRITE, and commits it. The test role's default is read-only (ALTER
// ROLE … SET default_transaction_read_only = on, as .ci/catalog.sh and the
// README set it up), which an explicit READ WRITE overrides for that
// transaction only: behind a transaction-pooling pgbouncer no server session
// is left writable.
func PGWrite(ctx context.Context, conn *pgx.Conn, stmts ...string) error {
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadWrite})
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	for _, s := range stmts {
		if _, err := tx.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return tx.Commit(ctx)
}

package engine

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// ConnectError is a failure to connect to a model's PostgreSQL server (or a
// connection to it that broke), told without the parts of the connection
// string pgx's own message quotes (user, database, host, port): Cause says
// why in words a client may read. Err, pgx's error with those details, is for
// the server's log only.
type ConnectError struct {
	Env   string // the variable that holds the connection string (dsnEnv)
	Cause string // "connection refused", "did not answer within 10 s", …
	Lost  bool   // a connection made earlier broke (not a new one refused)
	Err   error
}

func (e *ConnectError) Error() string {
	server := "the PostgreSQL server"
	if e.Env != "" {
		server += " named by " + e.Env
	}
	if e.Lost {
		return "the connection to " + server + " broke: " + e.Cause
	}
	return "could not connect to " + server + ": " + e.Cause
}

// ProbePostgres connects once to dsn and closes the connection: nil when the
// server answers and lets the role in, else a *ConnectError (env names the
// variable that held dsn) or, when ctx ends, ctx's error. It gives up after
// timeout (zero: PGConnectTimeout).
func ProbePostgres(ctx context.Context, dsn, env string, timeout time.Duration) error {
	if timeout <= 0 {
		timeout = PGConnectTimeout
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return ErrBadDSN
	}
	cfg.RuntimeParams["application_name"] = "wiremcp-catalog-server"
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, err := pgx.ConnectConfig(cctx, cfg)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return connError(err, env, timeout, cctx.Err() != nil)
	}
	c.Close(cctx)
	return nil
}

// connError is err as a *ConnectError when it is a failure to connect, or a
// connection that broke (PostgreSQL's own word that it ends the session, as a
// restart, a failover or pg_terminate_backend sends: pgLostState); nil for any
// other error (PostgreSQL's answer to a query). timeout is the time the
// connection had; late says it ran out.
func connError(err error, env string, timeout time.Duration, late bool) *ConnectError {
	var pe *pgconn.PgError
	var ce *pgconn.ConnectError
	var oe *net.OpError
	switch {
	case errors.As(err, &ce):
		return &ConnectError{Env: env, Cause: connectCause(err, timeout, late), Err: err}
	case errors.As(err, &pe) && pgLostState(pe.Code):
		return &ConnectError{Env: env, Cause: lostCause(pe), Lost: true, Err: err}
	case errors.As(err, &pe):
		return nil
	case errors.As(err, &oe), errors.Is(err, io.ErrUnexpectedEOF):
		return &ConnectError{Env: env, Cause: connectCause(err, timeout, late), Lost: true, Err: err}
	}
	return nil
}

// pgLostState reports whether the SQLSTATE code is PostgreSQL's word that the
// session ends or cannot go on, whatever the query: admin_shutdown (57P01: a
// restart, a fast shutdown, pg_terminate_backend), crash_shutdown (57P02),
// cannot_connect_now (57P03) and the connection exceptions (class 08).
func pgLostState(code string) bool {
	return code == "57P01" || code == "57P02" || code == "57P03" || strings.HasPrefix(code, "08")
}

// lostCause says why PostgreSQL ended a session (pgLostState), with its own
// message, which names no user or database.
func lostCause(pe *pgconn.PgError) string {
	why := "the server ended the session"
	switch pe.Code {
	case "57P01":
		why = "the server ended the session (it is restarting or shutting down, or an administrator ended the session)"
	case "57P02":
		why = "the server ended the session because another of its processes crashed"
	case "57P03":
		why = "the server is starting up or shutting down"
	}
	return why + ": " + pe.Message + " (SQLSTATE " + pe.Code + ")"
}

// connectCause says why a connection failed, without what pgx's message
// quotes of the connection string: PostgreSQL's own refusals by their code
// (their messages name the user and database).
func connectCause(err error, timeout time.Duration, late bool) string {
	var pe *pgconn.PgError
	var ne net.Error
	switch {
	case errors.As(err, &pe):
		switch pe.Code {
		case "28P01":
			return "password authentication failed"
		case "28000":
			return "the server does not let the role in (invalid authorization: check the role and the server's pg_hba.conf)"
		case "3D000":
			return "the database does not exist"
		case "53300":
			return "the server has too many connections"
		case "57P03":
			return "the server is starting up or shutting down"
		}
		return "the server refused the connection (SQLSTATE " + pe.Code + ")"
	case late, errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "did not answer within " + strconv.FormatFloat(timeout.Seconds(), 'f', -1, 64) + " s"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the server closed the connection"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "no route to the server's host"
	case errors.As(err, new(*net.DNSError)):
		return "the server's host name could not be resolved"
	case errors.As(err, new(*tls.CertificateVerificationError)), errors.As(err, new(x509.UnknownAuthorityError)), errors.As(err, new(x509.HostnameError)):
		return "the server's TLS certificate could not be verified"
	}
	return "the connection failed (the server's log has the details)"
}

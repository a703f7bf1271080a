package main

import (
	"context"
	"database/sql"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
	"github.com/jackc/pgx/v5"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
)

// typedCases are values for the checked types, each with whether DuckDB 1.5.6
// reads it as that type (TestTypedParamsAgreeWithDuckDB asks DuckDB itself).
// Values are cast from text, as a call's values are (a DECIMAL's number too).
// DuckDB reads far more than ISO 8601 (duckdatetime.go): each kind of form it
// reads has a case here, and the nearest it refuses.
var typedCases = []struct {
	typ string
	v   any
	ok  bool
}{
	{"DATE", "2024-07-14", true},
	{"DATE", "2024-2-29", true},
	{"DATE", "infinity", true},
	{"DATE", "-infinity", true},
	{"DATE", "epoch", true},
	{"DATE", "10000-01-01", true},
	{"DATE", "2024-07-14 (BC)", true},
	{"DATE", "0005-02-29 (BC)", true}, // the year 4 BC is a leap year
	{"DATE", "0004-02-29 (BC)", false},
	{"DATE", "2024-07-14 10:00:00", true},
	{"DATE", "2024-07-14T10:00:00", true},
	{"DATE", "2024-07-14 10:00:00+02", true},
	{"DATE", "2025-13-45", false},
	{"DATE", "2023-02-29", false},
	{"DATE", "2024-02-30", false},
	{"DATE", "yesterday", false},
	{"DATE", "today", false},
	{"DATE", "20240714", false},
	{"DATE", "5881581-07-10", false},
	// DuckDB's DATE range, both sides of each end.
	{"DATE", "5881580-07-10", true},
	{"DATE", "5881580-07-11", false},
	{"DATE", "5881580-12-31", false},
	{"DATE", "5881580-07-10 24:00:00", true}, // the time is not read
	{"DATE", "5877642-06-25 (BC)", true},
	{"DATE", "5877642-06-24 (BC)", false},
	{"DATE", "5877642-01-01 (BC)", false},
	{"DATE", "290310-01-01 (BC)", true},
	{"DATE", "9999999-01-01 (BC)", false},
	{"DATE", "0000-01-01", true}, // 1 BC
	{"DATE", "0000-01-01 (BC)", false},
	{"DATE", "0001-01-01 (BC)", true},
	{"DATE", " 2024-07-14", true},
	{"DATE", "2024-07-14 ", true},
	{"DATE", "\t2024-07-14\n", true},
	{"DATE", "2024-07-14 (BC) ", true},
	{"DATE", "2024-07-14 09:30 ", true},
	{"DATE", " infinity ", true},
	// "/", "\" or a space between the parts (the same one twice), any number
	// of digits in the year, a minus sign before it (astronomical: -2024 is
	// 2025 BC), and anything after the day but a digit, unread.
	{"DATE", "2024/07/14", true},
	{"DATE", "2024 07 14", true},
	{"DATE", `2024\07\14`, true},
	{"DATE", "2024-07/14", false},
	{"DATE", "2024.07.14", false},
	{"DATE", "24-07-14", true}, // the year 24
	{"DATE", "4-7-4", true},
	{"DATE", "0000000002024-07-14", true},
	{"DATE", "2024-007-14", false},
	{"DATE", "+2024-07-14", false},
	{"DATE", "-2024-07-14", true},
	{"DATE", "-290307-12-21", true},
	{"DATE", "-0-07-14", true}, // 1 BC
	{"DATE", "-5877641-06-25", true},
	{"DATE", "-5877641-06-24", false},
	{"DATE", "-2024-07-14 (BC)", false},
	{"DATE", "99999999-01-01", false},
	{"DATE", "100000000-01-01", false},
	{"DATE", "2024-07-14abc", true},
	{"DATE", "2024-07-14T", true},
	{"DATE", "2024-07-14Z", true},
	{"DATE", "2024-07-14 24:61:99", true},
	{"DATE", "2024-07-140", false},
	{"DATE", "2024-07-14\t(BC)", true},
	{"DATE", "2024-07-14 (BC)x", true},
	{"DATE", "2024-07-14 (BC)5", false},
	{"DATE", "2024-07-14 (BC) 09:30", true},
	{"DATE", "2024-07-14 AD", true},
	// infinity, inf alone, and epoch, a minus sign before any (-epoch is epoch).
	{"DATE", "inf", true},
	{"DATE", "-inf", true},
	{"DATE", "INFINITY", true},
	{"DATE", "infin", false},
	{"DATE", "inf ", false},
	{"DATE", "-infinity x", false},
	{"DATE", "-epoch", true},
	{"DATE", "epochs", false},

	{"TIMESTAMP", "2024-07-14 09:30:00", true},
	{"TIMESTAMP", "2024-07-14T09:30:00.123456", true},
	{"TIMESTAMP", "2024-07-14", true},
	{"TIMESTAMP", "2024-07-14 09:30", true},
	{"TIMESTAMP", "2024-07-14 (BC)", true},
	{"TIMESTAMP", "10000-01-01", true},
	{"TIMESTAMP", "infinity", true},
	{"TIMESTAMP", "epoch", true},
	{"TIMESTAMP", "2024-07-14 24:00:00", true},
	{"TIMESTAMP", "2024-07-14 24:00:00.5", false},
	{"TIMESTAMP", "2024-07-14 25:00", false},
	{"TIMESTAMP", "2024-07-14T09:30:00Z", true},
	{"TIMESTAMP", "2024-07-14 09:30:00+05:30", true},
	{"TIMESTAMP", "2024-07-14 09:30:00+0200", true},
	{"TIMESTAMP", "2024-07-14 09:30:00.5+02", true},
	{"TIMESTAMP", "2024-07-14 09:30:00 UTC", true},
	{"TIMESTAMP", "2024-07-14 09:30:00 +02:00", false},
	{"TIMESTAMP", "2024-07-14 09:30:00 Z", false},
	{"TIMESTAMP", "2024-07-14 09:30Z", false},
	{"TIMESTAMP", "2024-07-14 09:30+02:00", false},
	{"TIMESTAMP", "2024-07-14 09:30 UTC", false},
	{"TIMESTAMP", "2024-07-14T09:30:00 Europe/Paris", false},
	{"TIMESTAMP", "2024-07-14 09:30:00 EST", false},
	{"TIMESTAMP", "2024-07-14 09:30:00+2", false},
	{"TIMESTAMP", "now", false},
	{"TIMESTAMP", "294248-01-10", false},
	// DuckDB's TIMESTAMP range: the largest is 294247-01-10 04:00:54.775806
	// (the next microsecond is infinity); before the year 1 only a date is
	// read, from 290309-12-22 (BC).
	{"TIMESTAMP", "294247-01-10 04:00:54.775806", true},
	{"TIMESTAMP", "294247-01-10 04:00:54.7758069", true}, // the 7th digit is dropped
	{"TIMESTAMP", "294247-01-10 04:00:54.775807", false},
	{"TIMESTAMP", "294247-01-10 04:00:55", false},
	{"TIMESTAMP", "294247-01-10", true},
	{"TIMESTAMP", "294247-01-09 24:00:00", true},
	{"TIMESTAMP", "294247-01-10 24:00:00", false},
	{"TIMESTAMP", "294247-12-31", false},
	{"TIMESTAMP", "294247-01-10 04:00:54-02", true}, // the offset is dropped
	{"TIMESTAMP", "294247-01-10 05:00:54-02", false},
	{"TIMESTAMP", "290309-12-22 (BC)", true},
	{"TIMESTAMP", "290309-12-21 (BC)", false},
	{"TIMESTAMP", "290310-01-01 (BC)", false},
	{"TIMESTAMP", "0000-01-01", true},
	{"TIMESTAMP", "0000-01-01 (BC)", false},
	{"TIMESTAMP", "2024-07-14 09:30:00 (BC)", false},
	{"TIMESTAMP_S", "294247-01-10 04:00:54", true},
	{"TIMESTAMP_S", "294247-01-10 04:00:55", false},
	{"TIMESTAMP_S", "290309-12-22 (BC)", true},
	{"TIMESTAMP_S", "290309-12-21 (BC)", false},
	{"TIMESTAMP_MS", "294247-01-10 04:00:54.775", true},
	{"TIMESTAMP_MS", "294247-01-10 04:00:54.776", false},
	{"TIMESTAMP_MS", "290309-12-22 (BC)", true},
	// TIMESTAMP_NS: from 1677-09-22 to 2262-04-11 23:47:16.854775806, in UTC
	// (an offset is applied).
	{"TIMESTAMP_NS", "2024-07-14 09:30:00.123456789", true},
	{"TIMESTAMP_NS", "1677-09-22 00:00:00", true},
	{"TIMESTAMP_NS", "1677-09-21 24:00:00", true},
	{"TIMESTAMP_NS", "1677-09-21 23:59:59", true}, // read, though DuckDB cannot show it as text
	{"TIMESTAMP_NS", "1677-09-22 00:00:00+01", true},
	{"TIMESTAMP_NS", "1677-09-22 00:30:00-01", true},
	{"TIMESTAMP_NS", "1677-09-21 00:12:43.145225", true},
	{"TIMESTAMP_NS", "1677-09-21 00:12:43.145224999", false},
	{"TIMESTAMP_NS", "1677-09-21 00:12:43.145225+00:00:01", false},
	{"TIMESTAMP_NS", "1677-09-21 00:00:00", false},
	{"TIMESTAMP_NS", "1600-01-01", false},
	{"TIMESTAMP_NS", "2262-04-11 23:47:16.854775806", true},
	{"TIMESTAMP_NS", "2262-04-11 23:47:16.8547758069", true},
	{"TIMESTAMP_NS", "2262-04-11 23:47:16.854775807", false},
	{"TIMESTAMP_NS", "2262-04-11 23:47:17", false},
	{"TIMESTAMP_NS", "2262-04-11 23:00:00-01", false},
	{"TIMESTAMP_NS", "2262-04-11 23:00:00+01", true},
	{"TIMESTAMP_NS", "2262-04-12", false},
	{"TIMESTAMP_NS", "10000-01-01", false},
	{"TIMESTAMP_NS", "2024-07-14 (BC)", false},
	{"TIMESTAMP_NS", "2024-07-14 09:30:00 UTC", true},
	{"TIMESTAMP_NS", "2024-07-14 09:30:00 Europe/Paris", false},
	{"TIMESTAMP_NS", "infinity", true},
	// The nanoseconds are past the time's check: 24:00:00.000000999 is read.
	{"TIMESTAMP_NS", "2024-07-14 24:00:00.000000999", true},
	{"TIMESTAMP_NS", "2024-07-14 24:00:00.000001", false},
	// An offset that takes the microseconds to infinity makes it infinity.
	{"TIMESTAMP_NS", "294247-01-10 04:00:53.775807-00:00:01", true},
	{"TIMESTAMP_NS", "294247-01-10 04:00:53.775806-00:00:01", false},
	// Offsets: two digits of hours, then :MM[:SS] or MM, any value.
	{"TIMESTAMP", "2024-07-14 09:30:00+05:30:30", true},
	{"TIMESTAMP", "2024-07-14 09:30:00+053030", false},
	{"TIMESTAMP", "2024-07-14 09:30:00+05:3030", false},
	{"TIMESTAMP", "2024-07-14 09:30:00+0530:30", false},
	{"TIMESTAMP", "2024-07-14 09:30:00+16", true},
	{"TIMESTAMP", "2024-07-14 09:30:00+15:60", true},
	{"TIMESTAMP", "2024-07-14 09:30:00+123", false},
	// Spaces around: skipped, but one after the value needs seconds before it.
	{"TIMESTAMP", "2024-07-14 09:30:00 ", true},
	{"TIMESTAMP", " 2024-07-14 09:30:00", true},
	{"TIMESTAMP", "2024-07-14 09:30:00Z ", true},
	{"TIMESTAMP", "2024-07-14 09:30:00 UTC ", true},
	{"TIMESTAMP", " infinity ", true},
	{"TIMESTAMP", "2024-07-14 09:30 ", false},
	{"TIMESTAMP", "2024-07-14 ", false},
	{"TIMESTAMP", "2024-07-14 (BC) ", false},
	// A fraction past 6 digits is dropped.
	{"TIMESTAMP", "2024-07-14 24:00:00.0000001", true},
	{"TIMESTAMP", "2024-07-14 24:00:00.000001", false},
	// The date as a DATE reads it, then a space or T (or none before other
	// spaces), then the time: one-digit fields, an hour of up to nine digits,
	// and cut short after a colon.
	{"TIMESTAMP", "2024/07/14 09:30:00", true},
	{"TIMESTAMP", "-2024-07-14 09:30:00", true},
	{"TIMESTAMP", "-290307-12-21", true},
	{"TIMESTAMP", "inf", true},
	{"TIMESTAMP", "2024-07-14 (BC) 09:30:00", true},
	{"TIMESTAMP", "2024-07-14 (BC)T09:30:00", true},
	{"TIMESTAMP", "2024-07-14 9:5:3", true},
	{"TIMESTAMP", "2024-07-14 09:30:0", true},
	{"TIMESTAMP", "2024-07-14 09:", true},
	{"TIMESTAMP", "2024-07-14 09:30:", true},
	{"TIMESTAMP", "2024-07-14 09:30:00.", true},
	{"TIMESTAMP", "2024-07-14 09", false},
	{"TIMESTAMP", "2024-07-14  09:30:00", true},
	{"TIMESTAMP", "2024-07-14T 09:30:00", true},
	{"TIMESTAMP", "2024-07-14\t09:30:00", true},
	{"TIMESTAMP", "2024-07-14t09:30:00", false},
	{"TIMESTAMP", "2024-07-1409:30:00", false},
	{"TIMESTAMP", "2024-07-14x", false},
	{"TIMESTAMP", "2024-07-14 009:30:00", true},
	{"TIMESTAMP", "2024-07-14 000000009:30:00", true},
	{"TIMESTAMP", "2024-07-14 0000000009:30:00", false},
	{"TIMESTAMP", "2024-07-14 100:00", false},
	// After the seconds: Z (not z), an offset, a colon after it read and
	// ignored; or one space (not a tab), and UTC or nothing.
	{"TIMESTAMP", "2024-07-14 09:30:00+02:", true},
	{"TIMESTAMP", "2024-07-14 09:30:00+02:00:", true},
	{"TIMESTAMP", "2024-07-14 09:30:00+02:0", false},
	{"TIMESTAMP", "2024-07-14 09:30:00+020", false},
	{"TIMESTAMP", "2024-07-14 09:30:00z", false},
	{"TIMESTAMP", "2024-07-14 09:30:00 utc", true},
	{"TIMESTAMP", "2024-07-14 09:30:00  UTC", false},
	{"TIMESTAMP", "2024-07-14 09:30:00\tUTC", false},
	{"TIMESTAMP", "2024-07-14 09:30:00\t", false},
	{"TIMESTAMP", "2024-07-14 09:30:00 \t", true},
	{"TIMESTAMP", "2024-07-14 09:30:00 UTC+2", false},
	{"TIMESTAMP", "290309-12-22 (BC) 00:00:00+02", true}, // the offset is dropped

	{"TIMESTAMPTZ", "2024-07-14T09:30:00Z", true},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00+02:00", true},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00-0530", true},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00 Europe/Paris", true},
	{"TIMESTAMPTZ", "2024-07-14T09:30:00 Europe/Paris", true},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00 UTC", true},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00 EST", true},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00 America/Argentina/Buenos_Aires", true},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00 Etc/GMT+5", true},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00.5 UTC", true},
	{"TIMESTAMPTZ", "2024-07-14", true},
	{"TIMESTAMPTZ", "2024-07-14 09:30", true},
	{"TIMESTAMPTZ", "infinity", true},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00 +02:00", false},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00 Z", false},
	{"TIMESTAMPTZ", "2024-07-14 09:30Z", false},
	{"TIMESTAMPTZ", "2024-07-14 09:30+02", false},
	{"TIMESTAMPTZ", "2024-07-14 09:30 UTC", false},
	{"TIMESTAMPTZ", "2024-07-14 09:30 Europe/Paris", false},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00EST", false},
	{"TIMESTAMPTZ", "2024-07-14 09:61", false},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00+053030", false},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00+05:30:30", true},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00+99", true},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00 ", true},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00 Europe/Paris ", true},
	{"TIMESTAMPTZ", "2024-07-14 09:30 ", false},
	{"TIMESTAMPTZ", "294247-01-10 04:00:54+02", true},
	{"TIMESTAMPTZ", "294247-01-10 04:00:54-02", false},
	{"TIMESTAMPTZ", "294247-01-10 05:00:54+01", false},
	{"TIMESTAMPTZ", "294247-01-10 04:00:55", false},
	{"TIMESTAMPTZ", "294247-12-31", false},
	{"TIMESTAMPTZ", "290309-12-22 (BC)", true},
	{"TIMESTAMPTZ", "290309-12-21 (BC)", false},
	// An offset takes the time anywhere in an int64 of microseconds: below the
	// first timestamp, or to infinity itself.
	{"TIMESTAMPTZ", "290309-12-22 (BC) 00:00:00+02", true},
	{"TIMESTAMPTZ", "290309-12-22 (BC) 00:00:00.224192+04:00:55", true},
	{"TIMESTAMPTZ", "290309-12-22 (BC) 00:00:00.224191+04:00:55", false},
	{"TIMESTAMPTZ", "290309-12-22 (BC) 00:00:00+23:59:59", false},
	{"TIMESTAMPTZ", "294247-01-10 04:00:53.775807-00:00:01", true},
	{"TIMESTAMPTZ", "-epoch", true},
	{"TIMESTAMPTZ", "inf", true},
	{"TIMESTAMPTZ", "2024/07/14 9:30:00 Europe/Paris", true},
	// Zones by name are ICU's, in any case; where the zone takes the time is
	// too (duckLeftCases); no zone is one letter, or begins with other than one.
	{"TIMESTAMPTZ", "2024-07-14 09:30:00 europe/paris", true},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00 PST", true},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00 UTC+2", true},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00 A", false},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00 5", false},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00 _UTC", false},
	{"TIMESTAMPTZ", "294247-01-09 23:00:54 America/New_York", true},
	{"TIMESTAMPTZ", "294247-01-10 04:00:54 Asia/Tokyo", true},
	{"TIMESTAMPTZ", "290309-12-22 (BC) 09:19:00 Asia/Tokyo", true},
	{"TIMESTAMPTZ", "290309-12-22 (BC) 00:00:00 America/New_York", true},

	{"TIME", "09:30", true},
	{"TIME", "9:30:15.5", true},
	{"TIME", "24:00:00", true},
	{"TIME", "24:00", true},
	{"TIME", "24:00:00.0", true},
	{"TIME", "09:30:00Z", true},
	{"TIME", "09:30:00+02", true},
	{"TIME", "09:30:00 +02:00", true},
	{"TIME", "09:30:00 UTC", true},
	{"TIME", "09:30:00 Z", true},
	{"TIME", "24:00:00.5", false},
	{"TIME", "09:30:60", false},
	{"TIME", "09:30Z", false},
	{"TIME", "09:30+02", false},
	{"TIME", "noon", false},
	{"TIME", "allballs", false},
	{"TIME", "24:00:00.0000001", true}, // the 7th digit is dropped
	{"TIME", "24:00:00.0000009", true},
	{"TIME", "24:00:00.000001", false},
	{"TIME", "23:59:59.9999999", true},
	{"TIME", " 09:30", true},
	{"TIME", "09:30:00 ", true},
	{"TIME", "\t09:30:00\t", true},
	{"TIME", "09:30 ", false},
	{"TIME", "09:30:00Z ", true},
	// One-digit fields, an hour of up to nine digits, cut short after a
	// colon; anything after the seconds unread.
	{"TIME", "9:5", true},
	{"TIME", "09:5:3", true},
	{"TIME", "09:", true},
	{"TIME", "09:30:", true},
	{"TIME", "009:30", true},
	{"TIME", "000000024:00", true},
	{"TIME", "0000000009:30", false},
	{"TIME", "100:00", false},
	{"TIME", "09:61", false},
	{"TIME", "09:30x", false},
	{"TIME", "09:30:00abc", true},
	{"TIME", "09:30:0099", true},
	{"TIME", "09:30:00.5.5", true},
	{"TIME", "09:30:00 Europe/Paris", true},
	// Or a timestamp's time of day, its offset dropped; UTC its only zone.
	{"TIME", "2024-07-14 09:30:00", true},
	{"TIME", "2024-07-14 09:30:00+02", true},
	{"TIME", "2024-07-14 09:30:00 UTC", true},
	{"TIME", "2024-07-14 09:30:00 Europe/Paris", false},
	{"TIME", "2024-07-14", true},
	{"TIME", "9 07 14", true},
	{"TIME", "epoch", true},
	{"TIME", "infinity", false},
	{"TIME", "-infinity", false},

	{"TIMETZ", "09:30:00+02:00", true},
	{"TIMETZ", "09:30:00+02", true},
	{"TIMETZ", "09:30:00-0530", true},
	{"TIMETZ", "09:30:00 +02:00", true},
	{"TIMETZ", "09:30:00.5 +02:00", true},
	{"TIMETZ", "09:30:00", true},
	{"TIMETZ", "09:30", true},
	{"TIMETZ", "09:30:00+15:59", true},
	{"TIMETZ", "24:00:00+02", true},
	{"TIMETZ", "09:30:00Z", false},
	{"TIMETZ", "09:30:00 Z", false},
	{"TIMETZ", "09:30+02", false},
	{"TIMETZ", "09:30 +02:00", false},
	{"TIMETZ", "09:30:00+16", false},
	{"TIMETZ", "09:30:00+2", false},
	{"TIMETZ", "09:30:00 UTC", false},
	{"TIMETZ", "24:00:00.5", false},
	{"TIMETZ", "24:00:00.0000001+02", true},
	{"TIMETZ", " 09:30:00+02 ", true},
	{"TIMETZ", "09:30 ", false},
	// Offsets up to 15:59:59 in all (+05:60 is +06:00), written in any of
	// these ways.
	{"TIMETZ", "09:30:00+15:60", false},
	{"TIMETZ", "09:30:00+15:59:59", true},
	{"TIMETZ", "09:30:00+15:59:60", false},
	{"TIMETZ", "09:30:00-15:59:59", true},
	{"TIMETZ", "09:30:00+05:60", true},
	{"TIMETZ", "09:30:00+1600", false},
	{"TIMETZ", "09:30:00+053030", true},
	{"TIMETZ", "09:30:00+05:3030", true},
	{"TIMETZ", "09:30:00+0530:30", true},
	{"TIMETZ", "09:30:00 -0530", true},
	// Spaces before the offset; anything after it unread.
	{"TIMETZ", "09:30:00  +02", true},
	{"TIMETZ", "09:30:00\t+02", true},
	{"TIMETZ", "09:30:00+02:", true},
	{"TIMETZ", "09:30:00+02abc", true},
	{"TIMETZ", "09:30:00+02:00 and more", true},
	{"TIMETZ", "09:30:00+0", false},
	{"TIMETZ", "09:30:00abc", false},
	{"TIMETZ", "09:30:0+02", true},
	{"TIMETZ", "009:30:00+02", true},
	{"TIMETZ", "25:00:00+02", false},
	// Or a timestamp's time of day in UTC (its offset applied).
	{"TIMETZ", "2024-07-14 09:30:00+02", true},
	{"TIMETZ", "2024-07-14 09:30:00 UTC", true},
	{"TIMETZ", "2024-07-14 09:30:00 Europe/Paris", false},
	{"TIMETZ", "2024-07-14", true},
	{"TIMETZ", "infinity", false},
	{"TIMETZ", "294247-01-10 04:00:53.775807-00:00:01", false}, // infinity

	{"UUID", "123e4567-e89b-12d3-a456-426614174000", true},
	{"UUID", "{123E4567-E89B-12D3-A456-426614174000}", true},
	{"UUID", "123e4567e89b12d3a456426614174000", true},
	{"UUID", "123e-4567-e89b-12d3-a456-4266-1417-4000", true},
	{"UUID", "123e4567-e89b12d3-a456426614174000", true},
	{"UUID", "{123e4567e89b12d3a456426614174000}", true},
	{"UUID", "abc", false},
	{"BIT", "10110", true},
	{"BIT", "0", true},
	{"BITSTRING", "1", true},
	{"bit", "01", true},
	{"BIT", "102", false},
	{"BIT", "", false},
	{"BIT", " 101", false},
	{"BIT", "101 ", false},
	{"BIT", "1 0", false},
	{"BIT", "0b101", false},
	{"BITSTRING", "x", false},
	{"BIT", "１", false},
	{"UUID", "", false},
	{"UUID", "123e4567-e89b-12d3-a456-42661417400", false},
	{"UUID", "123e4567-e89b-12d3-a456-4266141740000", false},
	{"UUID", "{123e4567-e89b-12d3-a456-426614174000", false},
	{"UUID", "123e4567-e89b-12d3-a456-42661417400g", false},
	// DuckDB reads hyphens anywhere (PostgreSQL does not).
	{"UUID", "-123e4567e89b12d3a456426614174000", true},
	{"UUID", "123e4567e89b12d3a456426614174000-", true},
	{"UUID", "123e4567--e89b-12d3-a456-426614174000", true},
	{"UUID", "{-123e4567e89b12d3a456426614174000}", true},
	{"UUID", " 123e4567-e89b-12d3-a456-426614174000", false},
	{"UUID", "123e4567-e89b-12d3-a456-426614174000 ", false},

	{"JSON", `{"a": [1, 2]}`, true},
	{"JSON", ` {"a":1} `, true},
	{"JSON", `{a: 1}`, false},
	{"JSON", `{"a":1}x`, false},
	{"JSON", `"\u0000"`, true},
	{"JSON", `"\ud800\udc00"`, true},
	{"JSON", `"\uD800\uDC00"`, true},
	{"JSON", `"\\ud800"`, true}, // a backslash, then ud800
	{"JSON", `"\ud800"`, false},
	{"JSON", `"\udc00"`, false},
	{"JSON", `"\ud800x"`, false},
	{"JSON", `"\ud800\u0041"`, false},
	{"JSON", `["\ud800"]`, false},
	{"JSON", `{"\ud800": 1}`, false},
	{"JSON", `"\ud800x\udc00"`, false},
	{"JSON", `["\ud800", "\udc00"]`, false},
	// DuckDB's JSON reader takes NaN and infinities in any case, and a comma
	// after the last element; and nesting as deep as it comes.
	{"JSON", `[1, 2,]`, true},
	{"JSON", `{"a": 1 , }`, true},
	{"JSON", `[,]`, false},
	{"JSON", `[1,,]`, false},
	{"JSON", `{,}`, false},
	{"JSON", `NaN`, true},
	{"JSON", `[-Infinity, inf, nAn]`, true},
	{"JSON", `{"a": INFINITY}`, true},
	{"JSON", `infinit`, false},
	{"JSON", `+inf`, false},
	{"JSON", `NULL`, false},
	{"JSON", strings.Repeat("[", 10001) + strings.Repeat("]", 10001), true},

	// DECIMAL text is rounded to the scale half away from zero, then held to
	// the precision (the JSON numbers of a call are cast from their text too).
	{"DECIMAL(5,2)", "999.99", true},
	{"DECIMAL(5,2)", "-12.5", true},
	{"DECIMAL(5,2)", "12345.5", false},
	{"NUMERIC(4)", "12345.0", false},
	{"NUMERIC(4)", "9999.4", true},
	{"DECIMAL(3,2)", "9.99", true},
	{"DECIMAL(3,2)", "9.994", true},
	{"DECIMAL(3,2)", "9.9949999999999999999999999", true},
	{"DECIMAL(3,2)", "9.995", false}, // 10.00
	{"DECIMAL(3,2)", "-9.995", false},
	{"DECIMAL(3,2)", "9.999", false},
	{"DECIMAL(3,2)", "0.005", true},
	{"DECIMAL(3,2)", "+.5", true},
	{"DECIMAL(3,2)", "5.", true},
	{"DECIMAL(3,2)", "-0", true},
	{"DECIMAL(3,0)", "999.4", true},
	{"DECIMAL(3,0)", "999.5", false},
	{"DECIMAL(4,2)", "99.995", false},
	{"DECIMAL(4,1)", "999.95", false},
	{"DECIMAL(4,1)", "999.9499", true},
	{"DECIMAL(38,37)", "9.999999999999998", true},
	{"DECIMAL(33,32)", "9.999999999999998", true},
	{"DECIMAL(38,37)", "9.99999999999999999999999999999999999994", true},
	{"DECIMAL(38,37)", "9.99999999999999999999999999999999999995", false},
	{"DECIMAL(38,37)", "0.00000000000000000000000000000000000005", true},
	{"DECIMAL(38,0)", "99999999999999999999999999999999999999.4", true},
	{"DECIMAL(38,0)", "99999999999999999999999999999999999999.5", false},
	{"DECIMAL(38,0)", "1e38", false},
	{"DECIMAL(38,2)", "9007199254740993.01", true},
	{"DECIMAL(38,2)", "123456789012345678901234567890.12", true},
	// DECIMAL and NUMERIC without a precision are DECIMAL(18,3); with only a
	// precision, the scale is 0.
	{"DECIMAL", "999999999999999.99", true},
	{"DECIMAL", "999999999999999.9995", false},
	{"DECIMAL", "1e15", false},
	{"DECIMAL", "-123456789012345.678", true},
	{"NUMERIC", "123456789012345.6785", true},
	{"NUMERIC", "1e30", false},
	{"NUMERIC", "0.0005", true},
	{"DECIMAL(5)", "99999.4", true},
	{"DECIMAL(5)", "99999.5", false},
	// Not decimal text, which the server takes only as the form it describes
	// (DuckDB also reads 1_0 as 10; PostgreSQL 15 does not).
	{"DECIMAL(5,2)", "0x10", false},
	{"DECIMAL(5,2)", "NaN", false},
	{"DECIMAL(5,2)", "1e", false},
	{"DECIMAL(5,2)", ".", false},
	{"DECIMAL(5,2)", "", false},
}

// checkValue is the check of a call's value v of p before the query, as
// bindParam makes it for the engine eng.
func checkValue(eng string, p catalog.Param, v any) error {
	_, err := bindParam(eng, p, v)
	return err
}

// TestTypedParamsAgreeWithDuckDB: for every value of typedCases, the check
// before the query (checkValue) says what DuckDB says when it casts the
// value to the type: what the check refuses DuckDB refuses, and what it lets
// through DuckDB reads. The table's verdicts are DuckDB's too.
func TestTypedParamsAgreeWithDuckDB(t *testing.T) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, tc := range typedCases {
		// Whether the cast succeeds, not whether its result can be shown: DuckDB
		// reads TIMESTAMP_NS '1677-09-21 12:00:00', but has no text for it.
		cast := "SELECT CAST(CAST(? AS VARCHAR) AS " + tc.typ + ") IS NOT NULL"
		var got bool
		duckErr := db.QueryRow(cast, tc.v).Scan(&got)
		if (duckErr == nil) != tc.ok {
			t.Errorf("%s %#v: DuckDB answers %v; the table says it reads it: %v", tc.typ, tc.v, duckErr, tc.ok)
		}
		checkErr := checkValue(catalog.EngineDuckDB, catalog.Param{Name: "v", Type: tc.typ}, tc.v)
		if (checkErr == nil) != (duckErr == nil) {
			t.Errorf("%s %#v: the check says %v; DuckDB answers %v", tc.typ, tc.v, checkErr, firstLine(duckErr))
		}
	}
}

// duckMisreads are values DuckDB reads as something other than they say, which
// the check refuses on purpose: BC without parentheses after a DATE is read as
// nothing (2024-07-14 BC is 2024-07-14 AD).
var duckMisreads = []struct{ typ, v string }{
	{"DATE", "2024-07-14 BC"},
	{"DATE", "2024-07-14 bc"},
	{"DATE", "2024-07-14BC"},
	{"DATE", "2024-07-14 B.C."},
}

// TestTypedParamsDuckDBMisreads: DuckDB reads each of duckMisreads, and the
// check refuses it.
func TestTypedParamsDuckDBMisreads(t *testing.T) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, tc := range duckMisreads {
		var got bool
		if err := db.QueryRow("SELECT CAST(CAST(? AS VARCHAR) AS "+tc.typ+") IS NOT NULL", tc.v).Scan(&got); err != nil {
			t.Errorf("%s %q: DuckDB refuses it (%v): it belongs in typedCases", tc.typ, tc.v, firstLine(err))
		}
		if err := checkValue(catalog.EngineDuckDB, catalog.Param{Name: "v", Type: tc.typ}, tc.v); err == nil {
			t.Errorf("%s %q: the check lets it through", tc.typ, tc.v)
		}
	}
}

// duckLeftCases are TIMESTAMPTZ values the check leaves to DuckDB, which
// refuses them: a time zone it does not know (ICU's to say), or a time that the
// zone's offset takes past either end of DuckDB's range (where, is ICU's to
// say), in a zone by name or the session's (zone: its TimeZone setting).
// DuckDB's errors quote no value, and are blamed on the parameter all the same
// (paramValueError).
var duckLeftCases = []struct{ zone, v string }{
	{"UTC", "2024-07-14 09:30:00 Mars/Olympus"},
	{"UTC", "2024-07-14 09:30:00 GMT+2"},
	{"UTC", "2024-07-14 09:30:00 utc+2"},
	{"UTC", "294247-01-10 04:00:54 America/New_York"},
	{"UTC", "294247-01-09 23:00:54.775806 America/New_York"},
	{"UTC", "294247-01-10 04:00:54.775806 Europe/London"},
	{"UTC", "290309-12-22 (BC) 00:00:00 Asia/Tokyo"},
	{"UTC", "290309-12-22 (BC) 09:18:58 Asia/Tokyo"},
	{"America/New_York", "294247-01-10 04:00:54"},
	{"America/New_York", "294247-01-09 23:00:55"},
	{"Asia/Kolkata", "290309-12-22 (BC) 05:00:00"},
}

// TestTypedParamsLeftToDuckDB: the check lets each of duckLeftCases through,
// DuckDB refuses it, and its error is blamed on the parameter, as the
// parameter's fault (a value in range and a known zone would do).
func TestTypedParamsLeftToDuckDB(t *testing.T) {
	q := &catalog.Query{Name: "q", Params: []catalog.Param{{Name: "at", Type: "TIMESTAMPTZ"}}}
	for _, tc := range duckLeftCases {
		db, err := sql.Open("duckdb", "")
		if err != nil {
			t.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		if _, err := db.Exec("SET TimeZone = '" + tc.zone + "'"); err != nil {
			t.Fatal(err)
		}
		var got bool
		duckErr := db.QueryRow("SELECT CAST(CAST(? AS VARCHAR) AS TIMESTAMPTZ) IS NOT NULL", tc.v).Scan(&got)
		db.Close()
		if duckErr == nil {
			t.Errorf("%s (in %s): DuckDB reads it", tc.v, tc.zone)
			continue
		}
		if err := checkValue(catalog.EngineDuckDB, q.Params[0], tc.v); err != nil {
			t.Errorf("%s: the check refuses it (%v); DuckDB's error: %v", tc.v, err, firstLine(duckErr))
		}
		pe := paramValueError(q, map[string]any{"at": tc.v}, "", &engine.SQLError{Engine: "duckdb", Message: duckErr.Error()})
		if pe == nil || !strings.Contains(pe.Error(), `parameter "at" must be a TIMESTAMPTZ`) {
			t.Errorf("%s: DuckDB's %q is not blamed on the parameter: %v", tc.v, firstLine(duckErr), pe)
		}
	}
}

// TestTypedParamTypeNames: PostgreSQL's long names of the time types, and a
// precision, are checked as the type they spell, by the model's engine.
func TestTypedParamTypeNames(t *testing.T) {
	for _, tc := range []struct {
		eng, typ, v string
		ok          bool
	}{
		{catalog.EngineDuckDB, "timestamp with time zone", "2024-07-14 09:30:00 Europe/Paris", true},
		{catalog.EngineDuckDB, "timestamp with time zone", "2024-07-14 09:30:00 +02:00", false},
		{catalog.EngineDuckDB, "TIMESTAMP WITHOUT TIME ZONE", "2024-07-14 09:30:00 Europe/Paris", false},
		{catalog.EngineDuckDB, "timestamp without time zone", "2024-07-14 09:30:00", true},
		{catalog.EngineDuckDB, "timestamp(3) with time zone", "yesterday", false},
		{catalog.EngineDuckDB, "time with time zone", "09:30:00 +02:00", true},
		{catalog.EngineDuckDB, "time with time zone", "09:30:00Z", false},
		{catalog.EngineDuckDB, "time without time zone", "noon", false},
		{catalog.EngineDuckDB, "timestamptz(6)", "2024-07-14 09:30Z", false},
		// PostgreSQL reads all of these (TestTypedParamsAgreeWithPostgres).
		{catalog.EnginePostgres, "timestamp with time zone", "2024-07-14 09:30:00 +02:00", true},
		{catalog.EnginePostgres, "TIMESTAMP WITHOUT TIME ZONE", "2024-07-14 09:30:00 Europe/Paris", true},
		{catalog.EnginePostgres, "timestamp(3) with time zone", "yesterday", true},
		{catalog.EnginePostgres, "time with time zone", "09:30:00Z", true},
		{catalog.EnginePostgres, "time without time zone", "allballs", true},
		{catalog.EnginePostgres, "timestamptz(6)", "2024-07-14 09:30Z", true},
		{catalog.EnginePostgres, "timestamptz(6)", "2024-13-14 09:30Z", false},
		{catalog.EnginePostgres, "time(0) with time zone", "09:61+02", false},
	} {
		err := checkValue(tc.eng, catalog.Param{Name: "v", Type: tc.typ}, tc.v)
		if (err == nil) != tc.ok {
			t.Errorf("%s %s %q: %v, want accepted: %v", tc.eng, tc.typ, tc.v, err, tc.ok)
		}
	}
}

// pgTypedCases are values for the checked types of a PostgreSQL model, each
// with whether PostgreSQL 15 reads it as that type (pg) and whether the check
// refuses it before the query runs (pre: only values PostgreSQL refuses, and
// surely so; the others go to PostgreSQL, whose error names the parameter).
// Values are cast from text, as a call's values are (a DECIMAL's number too).
var pgTypedCases = []struct {
	typ     string
	v       any
	pg, pre bool
}{
	// What DuckDB refuses and PostgreSQL reads.
	{"TIMESTAMPTZ", "2024-07-14T09:30Z", true, false},
	{"TIMESTAMPTZ", "2024-07-14 09:30+02:00", true, false},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00 +02:00", true, false},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00 Z", true, false},
	{"TIMESTAMPTZ", "2024-07-14 09:30 UTC", true, false},
	{"TIMESTAMPTZ", "2024-07-14 09:30 Europe/Paris", true, false},
	{"TIMESTAMPTZ", "2024-07-14 09:30 ", true, false},
	{"TIMESTAMPTZ", "294276-12-31 23:59:59.999999", true, false},
	{"TIMESTAMPTZ", "294277-01-01 10:00+15", true, false},
	{"TIMESTAMPTZ", "July 14, 2024 09:30", true, false},
	{"TIMESTAMPTZ", "now", true, false},
	{"TIMESTAMP", "2024-07-14T09:30Z", true, false},
	{"TIMESTAMP", "2024-07-14 09:30+02", true, false},
	{"TIMESTAMP", "2024-07-14 09:30:00 Europe/Paris", true, false},
	{"TIMESTAMP", "2024-07-14 09:30 BC", true, false},
	{"TIMESTAMP", "2024-07-14 (BC)", true, false},
	{"TIMESTAMP", "2024-07-14 09:30:60", true, false}, // 09:31:00
	{"TIMESTAMP", "2024-07-14 23:59:60", true, false},
	{"TIMESTAMP", "2024-07-14 24:00:00.0000001", true, false},
	{"TIMESTAMP", "2024-07-14 09:30:00+05:3", true, false},
	{"TIMESTAMP", "2024-07-14 ", true, false},
	{"TIMESTAMP", "yesterday", true, false},
	{"TIMETZ", "09:30:00Z", true, false},
	{"TIMETZ", "09:30+02", true, false},
	{"TIMETZ", "09:30:00+5", true, false},
	{"TIMETZ", "09:30 ", true, false},
	{"time with time zone", "09:30:00Z", true, false},
	{"timestamptz(6)", "2024-07-14 09:30Z", true, false},
	{"TIME", "09:30:60", true, false},
	{"TIME", "23:59:60", true, false},
	{"TIME", "24:00:00.0000004", true, false},
	{"TIME", "2024-07-14 09:30:00", true, false},
	{"TIME", "allballs", true, false},
	{"TIME", " 09:30 ", true, false},
	{"DATE", "yesterday", true, false},
	{"DATE", "2024-07-14 BC", true, false},
	{"DATE", "0005-02-29 BC", true, false}, // 5 BC is a leap year
	{"DATE", "2024-7-4", true, false},
	{"DATE", "July 14, 2024", true, false},
	{"DATE", "10000-01-01", true, false},
	{"DATE", " 2024-07-14 ", true, false},
	{"DATE", "5874897-12-31", true, false},
	{"DATE", "4714-11-24 BC", true, false},

	// Nonsense, refused before the query.
	{"DATE", "2024-13-01", false, true},
	{"DATE", "2023-02-29", false, true},
	{"DATE", "2024-02-29 BC", false, true},
	{"DATE", "0004-02-29 BC", false, true},
	{"DATE", "2024-00-10", false, true},
	{"DATE", "0000-01-01", false, true},
	{"TIMESTAMP", "2024-07-14 25:00", false, true},
	{"TIMESTAMP", "2024-07-14 24:00:01", false, true},
	{"TIMESTAMP", "2024-07-14 09:60", false, true},
	{"TIMESTAMP", "2024-07-14 23:59:60.5", false, true},
	{"TIMESTAMP", "2024-07-14 09:30:61", false, true},
	{"TIMESTAMPTZ", "2025-13-45 09:30Z", false, true},
	{"TIMESTAMPTZ", "2024-07-14T09:61Z", false, true},
	{"TIME", "09:60", false, true},
	{"TIME", "24:00:00.000001", false, true},
	{"TIME", "2024-13-01 09:30:00", false, true},
	{"TIMETZ", "25:00+02", false, true},
	// A second 60 is the next minute's 0, its fraction kept (09:12:60.5 is
	// 09:13:00.5), but not past 24:00:00; two fields before a fraction are
	// minutes and seconds (25:59.5 is 00:25:59.5).
	{"TIME", "09:12:60.5", true, false},
	{"TIMESTAMP", "2024-07-14 09:12:60.5", true, false},
	{"TIME", "23:58:60.5", true, false},
	{"TIME", "23:59:60.5", false, true},
	{"TIME", "25:59.5", true, false},
	{"TIMESTAMP", "2024-07-14 25:59.5", true, false},
	{"TIMETZ", "59:60.5+02", true, false},
	{"TIME", "60:00.5", false, true},
	{"TIME", "59:61.5", false, true},

	// Left to PostgreSQL, which refuses them and names the value.
	{"DATE", "5874898-01-01", false, false},
	{"DATE", "4714-11-23 BC", false, false},
	{"DATE", "20241301", false, false},
	{"DATE", "someday", false, false},
	{"TIMESTAMP", "294277-01-01", false, false},
	{"TIMESTAMP", "2024-07-14 09:30:00+053030", false, false},
	{"TIMESTAMP", "2024-07-14 09:30:00+16", false, false},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00 Mars/Olympus", false, false},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00+15:60", false, false},
	{"TIME", "24:00:00.00000051", false, false}, // rounds to 24:00:00.000001
	{"TIMETZ", "09:30:00+15:60", false, false},
	{"TIMETZ", "09:30:00+02abc", false, false},

	{"UUID", "123e4567-e89b-12d3-a456-426614174000", true, false},
	{"UUID", "{123E4567-E89B-12D3-A456-426614174000}", true, false},
	{"UUID", "123e4567e89b12d3a456426614174000", true, false},
	{"UUID", "123e-4567-e89b-12d3-a456-4266-1417-4000", true, false},
	{"UUID", "123e4567-e89b12d3-a456426614174000", true, false},
	{"UUID", "{123e4567e89b12d3a456426614174000}", true, false},
	{"UUID", "-123e4567e89b12d3a456426614174000", false, true},
	{"UUID", "123e4567e89b12d3a456426614174000-", false, true},
	{"UUID", "123e4567--e89b-12d3-a456-426614174000", false, true},
	{"UUID", "{-123e4567e89b12d3a456426614174000}", false, true},
	{"UUID", "12-3e4567e89b12d3a456426614174000", false, true},
	{"UUID", " 123e4567-e89b-12d3-a456-426614174000", false, true},
	{"UUID", "{123e4567-e89b-12d3-a456-426614174000", false, true},
	{"UUID", "abc", false, true},

	{"JSON", `{"a": [1, 2]}`, true, false},
	{"JSON", `"\ud800"`, true, false}, // json keeps the text as written
	{"JSON", `"\u0000"`, true, false},
	{"JSON", `{a: 1}`, false, true},
	{"JSONB", `"\ud800\udc00"`, true, false},
	{"JSONB", `"\ud800"`, false, true},
	{"JSONB", `"\udc00"`, false, true},
	{"JSONB", `"\u0000"`, false, true},
	{"JSONB", `"\ud800x\udc00"`, false, true},
	{"JSONB", `["\ud800", "\udc00"]`, false, true},
	{"JSON", `[1,]`, false, true},
	{"JSON", `NaN`, false, true},
	// Deeper than encoding/json goes (10000), not as deep as PostgreSQL's stack.
	{"JSON", strings.Repeat("[", 10001) + strings.Repeat("]", 10001), true, false},
	{"JSONB", strings.Repeat("[", 10001) + strings.Repeat("]", 10001), true, false},

	// NUMERIC rounds the decimal text half away from zero, then holds it to
	// the precision (the JSON numbers of a call are cast from their text too).
	{"DECIMAL(3,2)", "9.99", true, false},
	{"DECIMAL(3,2)", "9.994", true, false},
	{"DECIMAL(3,2)", "9.9949999999999999999999999", true, false},
	{"DECIMAL(3,2)", "9.995", false, true},
	{"DECIMAL(3,2)", "-9.995", false, true},
	{"DECIMAL(3,2)", "9.999", false, true},
	{"DECIMAL(3,2)", "+.5", true, false},
	{"DECIMAL(3,2)", "5.", true, false},
	{"DECIMAL(3,2)", "15e-1", true, false},
	{"DECIMAL(3,2)", "0.09995E2", false, true},
	{"DECIMAL(4,2)", "99.995", false, true},
	{"DECIMAL(5,2)", "999.99", true, false},
	{"DECIMAL(5,2)", "12345.5", false, true},
	{"NUMERIC(4)", "9999.4", true, false},
	{"NUMERIC(4)", "9999.5", false, true},
	{"DECIMAL(3,0)", "999.4", true, false},
	{"DECIMAL(3,0)", "999.5", false, true},
	{"DECIMAL(38,37)", "9.999999999999998", true, false},
	{"DECIMAL(33,32)", "9.999999999999998", true, false},
	{"DECIMAL(38,0)", "9.99999999999999e37", true, false},
	{"DECIMAL(38,0)", "1e38", false, true},
	{"DECIMAL(38,2)", "9007199254740993.01", true, false},
	{"NUMERIC(50,2)", "1e47", true, false},
	{"NUMERIC(50,2)", "1e48", false, true},
	{"NUMERIC(2,5)", "0.000994", true, false}, // PostgreSQL 15: a scale past the precision
	{"NUMERIC(2,5)", "0.000995", false, true},
	// NUMERIC without a precision has no limit but numeric's own: 131072 digits
	// before the point, 16383 after (as written, less the exponent), an
	// exponent below 2^30-1; with only a precision, the scale is 0.
	{"NUMERIC", "1e30", true, false},
	{"NUMERIC", "123456789012345678901234567890.123456789", true, false},
	{"DECIMAL", "1.7976931348623157e308", true, false},
	{"NUMERIC", "1e131071", true, false},
	{"NUMERIC", "1e131072", false, true},
	{"NUMERIC", "1e-16383", true, false},
	{"NUMERIC", "1.5e-16383", false, true},
	{"NUMERIC", "0e-16384", false, true},
	{"NUMERIC", "0e999999999", true, false},
	{"NUMERIC", "0e1073741823", false, true},
	{"NUMERIC", "0e-1073741822", false, true},
	{"DECIMAL(5)", "99999.4", true, false},
	{"DECIMAL(5)", "99999.5", false, true},
	{"DECIMAL(5,2)", "1_0", false, true},
	{"DECIMAL(5,2)", "", false, true},
}

// TestTypedParamsAgreeWithPostgres: for every value of pgTypedCases, PostgreSQL
// reads it as the table says, and the check for a PostgreSQL model refuses
// exactly the values marked pre — never one PostgreSQL reads. It runs against
// the server of CATALOG_TEST_PG_DSN (see engine's tests for when it skips).
func TestTypedParamsAgreeWithPostgres(t *testing.T) {
	dsn := pgTestDSN(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// The session's settings the answers depend on, as a fresh server has them.
	if _, err := conn.Exec(ctx, "SET DateStyle = 'ISO, MDY'; SET TimeZone = 'UTC'"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range pgTypedCases {
		cast := "SELECT CAST($1::text AS " + tc.typ + ")::text"
		var got string
		pgErr := conn.QueryRow(ctx, cast, tc.v).Scan(&got)
		if (pgErr == nil) != tc.pg {
			t.Errorf("%s %#v: PostgreSQL answers %q, %v; the table says it reads it: %v", tc.typ, tc.v, got, pgErr, tc.pg)
		}
		if tc.pg && tc.pre {
			t.Errorf("%s %#v: the table has the check refuse a value PostgreSQL reads", tc.typ, tc.v)
		}
		checkErr := checkValue(catalog.EnginePostgres, catalog.Param{Name: "v", Type: tc.typ}, tc.v)
		if (checkErr != nil) != tc.pre || checkErr != nil && pgErr == nil {
			t.Errorf("%s %#v: the check says %v, want a refusal: %v; PostgreSQL answers %q, %v", tc.typ, tc.v, checkErr, tc.pre, got, pgErr)
		}
	}
}

func firstLine(err error) string {
	if err == nil {
		return "<nil>"
	}
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// TestTimestampZoneAdvice: DuckDB's advice for a TIMESTAMP with a time zone
// ("use TIMESTAMPTZ with the ICU extension loaded") is replaced by what to
// write instead, which works: a caller cannot load extensions. A TIMESTAMPTZ
// parameter with a zone by name is read in that zone.
func TestTimestampZoneAdvice(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql":         "-- @source one\nSELECT 1 AS x;\n\n-- @query at\n-- @param ts TIMESTAMPTZ\nSELECT CAST($ts AS TIMESTAMPTZ) = TIMESTAMPTZ '2024-07-14 07:30:00Z' AS same;\n",
	})
	cs := connectHTTP(t, startHTTP(t, newTestService(t, dir, Config{})).URL, "")
	var te toolError
	r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m", "sql": "SELECT CAST('2024-07-14 09:30:00 Europe/Paris' AS TIMESTAMP) AS t"}, &te)
	if !r.IsError || strings.Contains(text(r), "ICU") || strings.Contains(text(r), "extension") || !strings.Contains(te.Error, "A TIMESTAMP takes no time zone but UTC") {
		t.Errorf("a TIMESTAMP with a zone: %s", text(r))
	}
	var res struct{ Rows [][]any }
	if r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m", "sql": "SELECT CAST('2024-07-14 09:30:00 Europe/Paris' AS TIMESTAMPTZ) = TIMESTAMPTZ '2024-07-14 07:30:00Z' AS same"}, &res); r.IsError || len(res.Rows) != 1 || res.Rows[0][0] != true {
		t.Errorf("the advice's TIMESTAMPTZ: %s", text(r))
	}
	res.Rows = nil
	if r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m/at", "parameters": map[string]any{"ts": "2024-07-14 09:30:00 Europe/Paris"}}, &res); r.IsError || len(res.Rows) != 1 || res.Rows[0][0] != true {
		t.Errorf("a TIMESTAMPTZ parameter with a zone: %s", text(r))
	}
}

// decimalTexts are random decimal texts, heavy in the digits 9, 4, 5 and 0
// where rounding and precision meet; with exponents if exp.
func decimalTexts(n int, exp bool) []string {
	r := rand.New(rand.NewPCG(1, 2))
	digits := func(max int) string {
		var b strings.Builder
		for range r.IntN(max + 1) {
			b.WriteByte("9999445500123678"[r.IntN(16)])
		}
		return b.String()
	}
	var out []string
	for len(out) < n {
		s := []string{"", "-", "+"}[r.IntN(3)] + digits(40)
		if r.IntN(4) > 0 {
			s += "." + digits(42)
		}
		if exp && r.IntN(2) == 0 {
			s += []string{"e", "E"}[r.IntN(2)] + []string{"", "-", "+"}[r.IntN(3)] + strconv.Itoa(r.IntN(45))
		}
		if _, ok := parseDecimal(s); ok {
			out = append(out, s)
		}
	}
	return out
}

// TestDecimalValuesAgreeWithDuckDB: for decimal text without an exponent,
// DuckDB's cast of the text to DECIMAL(p,s) refuses what decimalValue refuses,
// and reads the rest as the text decimalValue binds (rounded half away from
// zero to the scale). With an exponent, decimalValue reads the number exactly,
// where DuckDB's own cast of the text does not (the cases below).
func TestDecimalValuesAgreeWithDuckDB(t *testing.T) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	types := []string{"DECIMAL(3,2)", "DECIMAL(4,1)", "DECIMAL(5)", "DECIMAL(9,4)", "DECIMAL", "DECIMAL(18,17)", "DECIMAL(19,2)", "DECIMAL(38,2)", "DECIMAL(38,37)", "DECIMAL(38,0)", "NUMERIC(1,1)"}
	for i, text := range decimalTexts(3000, false) {
		typ := types[i%len(types)]
		var duck, duckBound string
		cast := "SELECT CAST(CAST(CAST(? AS VARCHAR) AS " + typ + ") AS VARCHAR)"
		duckErr := db.QueryRow(cast, text).Scan(&duck)
		bound, err := decimalValue(catalog.EngineDuckDB, catalog.Param{Name: "v", Type: typ}, text)
		if err == nil {
			if err := db.QueryRow(cast, bound).Scan(&duckBound); err != nil {
				t.Errorf("%s %q: DuckDB refuses the bound text %q: %v", typ, text, bound, firstLine(err))
			}
		}
		if (err == nil) != (duckErr == nil) || err == nil && duckBound != duck {
			t.Errorf("%s %q: the server binds %q (read as %q), %v; DuckDB reads %q, %v", typ, text, bound, duckBound, err, duck, firstLine(duckErr))
		}
	}
	for _, tc := range []struct{ typ, text, want, duck string }{
		{"DECIMAL(3,2)", "15e-1", "1.50", "refused"},
		{"DECIMAL(18,3)", "5e-5", "0.000", "0.001"},
		{"DECIMAL(18,3)", "5e-4", "0.001", "0.001"},
		{"DECIMAL(18,3)", "-1.2355e-1", "-0.124", "-0.124"},
		{"DECIMAL(5,2)", "1.00049e2", "100.05", "100.05"},
		{"DECIMAL(38,2)", "1e-99999999999", "0.00", "refused"},
		{"DECIMAL(38,2)", "0e99999999999", "0.00", "refused"},
		{"DECIMAL(38,2)", "9.9999999999999999999999999999999999995e36", "", "refused"},
		{"DECIMAL(38,2)", "1e99999999999999999999", "", "refused"},
	} {
		bound, err := decimalValue(catalog.EngineDuckDB, catalog.Param{Name: "v", Type: tc.typ}, tc.text)
		if bound != tc.want || (err == nil) != (tc.want != "") {
			t.Errorf("%s %q: the server binds %q, %v; want %q", tc.typ, tc.text, bound, err, tc.want)
		}
		var duck string
		if err := db.QueryRow("SELECT CAST(CAST(CAST(? AS VARCHAR) AS "+tc.typ+") AS VARCHAR)", tc.text).Scan(&duck); err != nil {
			duck = "refused"
		}
		if duck != tc.duck {
			t.Errorf("%s %q: DuckDB reads %q, the table says %q", tc.typ, tc.text, duck, tc.duck)
		}
	}
}

// TestDecimalValuesAgreeWithPostgres: for decimal text with or without an
// exponent, PostgreSQL's cast of the text to NUMERIC(p,s) refuses what
// decimalValue refuses, and reads the rest as the text decimalValue binds; a
// NUMERIC without a precision is bound as written (CATALOG_TEST_PG_DSN).
func TestDecimalValuesAgreeWithPostgres(t *testing.T) {
	dsn := pgTestDSN(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	types := []string{"NUMERIC(3,2)", "NUMERIC(4,1)", "NUMERIC(5)", "NUMERIC(9,4)", "NUMERIC", "NUMERIC(2,5)", "NUMERIC(38,2)", "NUMERIC(38,37)", "NUMERIC(50,0)", "DECIMAL(1,1)"}
	for i, text := range decimalTexts(3000, true) {
		typ := types[i%len(types)]
		var pg, pgBound string
		pgErr := conn.QueryRow(ctx, "SELECT CAST($1::text AS "+typ+")::text", text).Scan(&pg)
		bound, err := decimalValue(catalog.EnginePostgres, catalog.Param{Name: "v", Type: typ}, text)
		if err == nil {
			if err := conn.QueryRow(ctx, "SELECT CAST($1::text AS "+typ+")::text", bound).Scan(&pgBound); err != nil {
				t.Errorf("%s %q: PostgreSQL refuses the bound text %q: %v", typ, text, bound, err)
			}
		}
		if (err == nil) != (pgErr == nil) || err == nil && pgBound != pg {
			t.Errorf("%s %q: the server binds %q (read as %q), %v; PostgreSQL reads %q, %v", typ, text, bound, pgBound, err, pg, pgErr)
		}
	}
}

package main

import "encoding/base64"

// Literal fixture data. The conformance suite compares some of these strings and MIME
// types exactly; the Go tests in this directory assert all of them over the wire.
const (
	// redPixelPNG is a 1×1 red PNG.
	redPixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	// silentWAV is a minimal PCM WAV file with one silent sample.
	silentWAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="

	simpleText         = "This is a simple text response for testing."
	errorText          = "This tool intentionally returns an error for testing"
	embeddedText       = "This is an embedded resource content."
	mixedIntro         = "Multiple content types test:"
	mixedResourceJSON  = `{"test":"data","value":123}`
	staticText         = "This is the content of the static text resource."
	watchedText        = "Watched resource content"
	simplePromptText   = "This is a simple prompt for testing."
	promptResourceText = "Embedded resource content for testing."
	promptImageText    = "Please analyze the image above."
)

// mustBase64 decodes a constant of this file; a bad constant is a programmer error.
func mustBase64(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic("everything-server: bad base64 fixture: " + err.Error())
	}
	return b
}

var (
	pngBytes = mustBase64(redPixelPNG)
	wavBytes = mustBase64(silentWAV)
)

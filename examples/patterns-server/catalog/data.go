package catalog

// builtinPatterns returns the metadata of the built-in catalog; the example code
// is attached from the embedded files by New.
func builtinPatterns() []Pattern {
	var all []Pattern
	for _, part := range [][]Pattern{
		concurrencyPatterns(), errorPatterns(), testingPatterns(), httpPatterns(),
		genericsPatterns(), ioPatterns(), designPatterns(), performancePatterns(),
	} {
		all = append(all, part...)
	}
	return all
}

// howAndPitfalls builds the two standard sections of a pattern.
func howAndPitfalls(how, pitfalls string) []Section {
	return []Section{{Heading: "How it works", Body: how}, {Heading: "Pitfalls", Body: pitfalls}}
}

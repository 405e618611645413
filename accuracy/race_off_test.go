//go:build !race

package accuracy

// convolutionTestSample is the sample of the convolution sweeps that the
// tests estimate: every 24th distinct launch of each file, about 40 per
// GPU (all of them take minutes; go run . measured --hardware does).
const convolutionTestSample = 24

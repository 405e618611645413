//go:build race

package accuracy

// convolutionTestSample is the sample of the convolution sweeps that the
// tests estimate: under the race detector, whose estimates run several
// times slower, every 48th distinct launch of each file, about 20 per GPU.
const convolutionTestSample = 48

//go:build race

package accuracy

// convolutionTestSample is the sample of the convolution sweeps that the
// tests estimate: under the race detector, whose estimates run several
// times slower, every 96th distinct launch of each file, about 10 per GPU.
const convolutionTestSample = 96

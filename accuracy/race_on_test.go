//go:build race

package accuracy

// convolutionTestSample is the sample of the convolution sweeps that the
// tests estimate: under the race detector, whose estimates run several
// times slower, every 96th configuration of each class and the last, 18
// to 30 configurations and 39 to 61 launches per GPU.
const convolutionTestSample = 96

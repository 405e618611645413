//go:build !race

package accuracy

// convolutionTestSample is the sample of the convolution sweeps that the
// tests estimate (sampleConvolution): every 48th configuration of each
// class and the last, 27 to 40 configurations and 60 to 83 launches per GPU
// (all of them take more than an hour; go run . measured --hardware does).
const convolutionTestSample = 48

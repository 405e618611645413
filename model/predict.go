package model

import "github.com/polyvol/polyvol/device"

// Predict evaluates performance model name on the volumes and launch of a
// report that Estimate computed on dev (with any model), for a kernel of
// fpBytes-wide floating point: the Prediction that Estimate with that
// model gives, without counting the volumes again.
func Predict(name ModelName, r *Report, dev *device.Device, fpBytes int) (Prediction, error) {
	return predict(name, r, dev, r.Launch.BlocksPerSM, r.Launch.ThreadsPerBlock, r.Launch.LupsPerThread, fpBytes)
}

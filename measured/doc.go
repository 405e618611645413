// Package measured reads GPU measurements of generated kernels and compares
// them with predictions.
//
// scripts/measure-gpu.sh runs the programs of `polyvol cuda` under Nsight
// Compute and writes one CSV file per sweep (schema in
// testdata/measured/README.md): header comment lines "# key: value" that
// record the device, driver, CUDA version and clocks, then one row per
// configuration with the launch (kernel, block, fold, domain), the timing of
// an unprofiled run and the raw counter values. ReadCSV and LoadDir parse
// those files; Row.PerLup converts a counter to the per-lattice-update unit of
// the model (bytes per Lup, L1 wavefronts per 32 Lups). MAPE, Spearman and
// PredictedBest are the accuracy and ranking statistics of the comparison.
//
// Layer: measured is pure Go and imports no polyvol package; the cli package
// feeds it the model's predictions.
package measured

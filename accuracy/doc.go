// Package accuracy compares polyvol's analytic estimates with its
// trace-driven simulator.
//
// Layer: accuracy sits above model and sim, which it drives (model.Estimate
// and sim.Run), and below cli. It may import model, sim, kernel, device,
// examples, pool and measured (for MAPE and Spearman ρ); nothing below it
// imports it.
package accuracy

package cli

import (
	"fmt"
	"github.com/polyvol/polyvol/request"
	"os"

	"github.com/polyvol/polyvol/cudagen"
	"github.com/polyvol/polyvol/kernel"
	ucli "github.com/urfave/cli/v2"
)

func init() {
	register(func() *ucli.Command {
		return &ucli.Command{
			Name:      "cuda",
			Usage:     "write a CUDA program that runs a kernel spec, for measurements with hardware counters",
			ArgsUsage: "SPEC",
			UsageText: `polyvol cuda SPEC --block X,Y,Z [--fold X,Y,Z] [--tile TILING] [--unstaged] [--steps T]
             [--domain X,Y,Z] [--device NAME] [-o FILE.cu]

` + specArgHelp + `
The program performs every load and store of the spec for each lattice point
of the domain, guarded by the domain, with the given block size and thread
folding; a chain of fused multiply-adds and additions over the loaded values,
with the spec's flops (at least one per loaded value), is stored to every
store target.
--tile strided places a thread's fold points one block size apart (x =
blockIdx.x*blockDim.x*f + threadIdx.x + j*blockDim.x), consecutive, the
default, makes them neighbours (x = (blockIdx.x*blockDim.x + threadIdx.x)*f
+ j).
Its main allocates and initialises the fields, makes ` + fmt.Sprint(cudagen.Warmup) + ` untimed launches,
times the next ones with CUDA events and prints one line (shown here in three)
   polyvol kernel=NAME block=X,Y,Z fold=X,Y,Z domain=X,Y,Z
       flops_per_lup=F reps=N ms=MS glups=G blocks_per_sm=B
       modelled_blocks_per_sm=M
The kernel is declared __launch_bounds__(threads per block, M), where M is
the resident blocks per SM that polyvol models on --device from the spec's
registers and shared_bytes: nvcc then uses few enough registers for M blocks
to fit, and B, the occupancy the CUDA runtime reports, shows whether the
measured kernel runs at the modelled occupancy (B > M when it needs fewer
registers than the spec states).
The program's first lines say how to build it for --device: nvcc
-arch=sm_NN with the device's compute capability for NVIDIA GPUs, and for
AMD GPUs hipify-perl, then hipcc --offload-arch=gfxNNN with its GPU target.
--steps T (a kernel with a state) writes T time steps per launch: the
staged tiles grown for T steps are copied once, each step computes the
block's points grown by the steps left in two alternating shared buffers of
the state, with a barrier after each, and the last step's values are
stored once; glups counts useful updates.
Raw ISL maps (load_isl, store_isl) are translated through the index
expressions polyvol turns them into when it loads the spec; a map without
such a form (parameters, disjunctions inside brackets) is an error.

Examples:
   polyvol cuda star3d-r4 --block 64,4,4 --fold 1,1,2 -o star.cu
   polyvol cuda star2d-r1 --block 32,8 --fold 2,1 --tile strided -o tile.cu
   nvcc -O3 -arch=sm_80 -o star star.cu && ./star 20
   polyvol cuda star3d-r4 --block 64,4,4 \
       --device H100-SXM -o h100.cu   # nvcc -arch=sm_90
   polyvol cuda star3d-r4 --block 512,2,1 --domain 1024,1024,512 -o lc.cu`,
			Flags: []ucli.Flag{
				&ucli.StringFlag{Name: "block", Aliases: []string{"b"}, Usage: "thread-block size `X,Y,Z`"},
				foldFlag(),
				tileFlag(),
				unstagedFlag,
				stepsFlag,
				&ucli.StringFlag{Name: "domain", Usage: "override the spec's domain with `X,Y,Z` lattice points (extents equal to the spec's domain follow it)"},
				&ucli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the program to `FILE` instead of standard output", TakesFile: true},
				&ucli.StringFlag{Name: "device", Aliases: []string{"d"}, Value: defaultDevice, Usage: "GPU `NAME` whose modelled occupancy the kernel's __launch_bounds__ asks for and whose architecture the build line targets (see 'polyvol devices')"},
				deviceFileFlag,
			},
			Action: runCuda,
		}
	})
}

// runCuda is the action of the cuda command.
func runCuda(c *ucli.Context) error {
	if !c.IsSet("block") {
		return flagErrorf("block", "Required flag %q not set", "block")
	}
	if c.NArg() != 1 {
		return usageErrorf("cuda takes one SPEC, got %d arguments", c.NArg())
	}
	if err := checkOutputFlag(c, "output"); err != nil {
		return err
	}
	k, err := loadKernel(c, c.Args().First())
	if err != nil {
		return err
	}
	if k, err = applyDomain(c, k); err != nil {
		return err
	}
	launch, err := launchFlags(c)
	if err != nil {
		return err
	}
	l, err := launch.Of(k)
	if err != nil {
		return err
	}
	dev, err := commandDevice(c)
	if err != nil {
		return err
	}
	shared, err := kernel.StagedSharedBytes(k, l)
	if err != nil {
		return usageErrorf("%s: %v", k.Source, err)
	}
	occ, err := dev.Occupancy(int(l.ThreadsPerBlock()), k.Registers, shared)
	if err != nil {
		return request.EstimateError(l, err)
	}
	prog, err := cudagen.Generate(k, l, cudagen.Residency{Device: dev.Name, Arch: dev.Arch, BlocksPerSM: occ.BlocksPerSM})
	if err != nil {
		return usageErrorf("%s: %v", k.Source, err)
	}
	out := c.String("output")
	if out == "" {
		_, err := fmt.Fprint(c.App.Writer, prog.Source)
		return err
	}
	if err := os.WriteFile(out, []byte(prog.Source), 0o644); err != nil {
		return flagErrorf("output", "--output: %v", err)
	}
	fmt.Fprintf(c.App.ErrWriter, "wrote %s: kernel %s, %s flops per lattice update in the chain (the spec states %s), %d bytes of device memory\n",
		out, prog.Function, num(prog.Flops), num(k.Flops), prog.Bytes)
	return nil
}

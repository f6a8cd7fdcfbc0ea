// The light curve's laws, the one table of them; no dependencies, so that
// code outside the op's math (tests/device_path_loops.h) derives from it too.
#ifndef JAXLIB_EXT_LIMB_DARK_LAW_TABLE_H_
#define JAXLIB_EXT_LIMB_DARK_LAW_TABLE_H_

// X(enumerator, name, count) per law: its number (the op's `law` attribute,
// laws.h's Law) its row's position, its name kepler.limb_dark's (LAWS, read
// from the CPU module's constants), its count the coefficients u it takes
// (-1: as many as its order or its table has). Adding a law: its intensity
// and flux (a case of laws.h's MakeLawTerms, or a header of its own) and a
// row here (docs/adding_an_op.md, "Adding a law").
#define JAXEXT_LIMB_DARK_LAWS(X)  \
  X(kPolynomial, "polynomial", -1) \
  X(kPower2, "power2", 2)          \
  X(kNonlinear, "nonlinear", 4)    \
  X(kSquareRoot, "square_root", 2) \
  X(kLogarithmic, "logarithmic", 2) \
  X(kExponential, "exponential", 2) \
  X(kTabulated, "tabulated", -1)  // tabulated_law.h

#endif  // JAXLIB_EXT_LIMB_DARK_LAW_TABLE_H_

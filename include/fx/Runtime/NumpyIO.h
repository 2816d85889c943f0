//===- NumpyIO.h - reading and writing .npy and .npz files ------*- C++ -*-===//
//
// NumPy's array files, the format fx-run reads inputs from and writes outputs
// to. .npy format versions 1.0, 2.0 and 3.0 with little-endian C-order data of
// the dtypes in DType except bf16 (numpy has none); .npz archives as written
// by numpy.savez (ZIP, members stored uncompressed, ZIP64 when large).
//
//===----------------------------------------------------------------------===//

#ifndef FX_RUNTIME_NUMPYIO_H
#define FX_RUNTIME_NUMPYIO_H

#include "fx/Runtime/Status.h"
#include "fx/Runtime/Tensor.h"

#include <string>
#include <utility>
#include <vector>

namespace fx::rt {

/// Reads an .npy file into a newly allocated tensor. Fails with a message
/// naming the file for: a file that cannot be opened, bad magic, an
/// unsupported format version, a truncated or malformed header, an
/// unsupported or big-endian dtype, Fortran order (accepted when at most one
/// dimension exceeds 1: the layout is then the same as C order), negative
/// dimensions, or data shorter than the shape says.
Result<Tensor> readNpy(const std::string &path);

/// Writes `tensor` as an .npy file (format 1.0, or 2.0 for huge headers),
/// byte-compatible with numpy.save. BF16 tensors are an error: numpy has no
/// bf16 dtype, so cast them first.
Status writeNpy(const std::string &path, const Tensor &tensor);

/// Reads every array of an .npz archive, in archive order, named as numpy
/// names them (member name without ".npy"). Compressed archives
/// (numpy.savez_compressed) are not supported.
Result<std::vector<std::pair<std::string, Tensor>>>
readNpz(const std::string &path);

/// Writes an .npz archive of `NAME.npy` members, stored uncompressed with
/// CRC-32s, as numpy.savez does. Names must be unique.
Status writeNpz(const std::string &path,
                const std::vector<std::pair<std::string, Tensor>> &arrays);

} // namespace fx::rt

#endif // FX_RUNTIME_NUMPYIO_H

//===- MemRefCopy.cpp - runtime support functions of compiled code --------===//

#include "fx/Runtime/MemRefCopy.h"

#include <cstring>
#include <vector>

namespace {
struct View {
  char *data;
  const int64_t *sizes;
  const int64_t *strides;
};

View getView(const FxUnrankedMemRef *m, int64_t elementSize) {
  auto *words = static_cast<int64_t *>(m->descriptor);
  char *aligned = reinterpret_cast<char *>(words[1]);
  return {aligned + words[2] * elementSize, words + 3, words + 3 + m->rank};
}
} // namespace

extern "C" void memrefCopy(int64_t elementSize, FxUnrankedMemRef *src,
                           FxUnrankedMemRef *dst) {
  int64_t rank = src->rank;
  View s = getView(src, elementSize), d = getView(dst, elementSize);
  int64_t total = 1;
  for (int64_t i = 0; i < rank; ++i)
    total *= s.sizes[i];
  if (total == 0)
    return;
  // Contiguous innermost runs are copied with memcpy.
  int64_t inner = rank == 0 ? 1 : s.sizes[rank - 1];
  bool innerContiguous =
      rank == 0 || (s.strides[rank - 1] == 1 && d.strides[rank - 1] == 1);
  std::vector<int64_t> index(rank, 0);
  int64_t outer = rank == 0 ? 1 : total / inner;
  for (int64_t n = 0; n < outer; ++n) {
    int64_t so = 0, dof = 0;
    for (int64_t i = 0; i + 1 < rank; ++i) {
      so += index[i] * s.strides[i];
      dof += index[i] * d.strides[i];
    }
    if (innerContiguous) {
      std::memcpy(d.data + dof * elementSize, s.data + so * elementSize,
                  inner * elementSize);
    } else {
      for (int64_t j = 0; j < inner; ++j)
        std::memcpy(d.data + (dof + j * d.strides[rank - 1]) * elementSize,
                    s.data + (so + j * s.strides[rank - 1]) * elementSize,
                    elementSize);
    }
    // Advance the outer index (all but the innermost dimension).
    for (int64_t i = rank - 2; i >= 0; --i) {
      if (++index[i] < s.sizes[i])
        break;
      index[i] = 0;
    }
  }
}

//===- baselines.cpp - reference timings for bench/cpu/run.py -------------===//
//
// Prints one line per measurement: `name median_ms min_ms max_ms`. Timed
// with the same method as fx-run --bench: 3 warm-up runs, then the median of
// N runs.
//
//===----------------------------------------------------------------------===//

#include <cblas.h>
#include <dnnl.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

extern "C" void openblas_set_num_threads(int);

static void measure(const std::string &name, int runs,
                    const std::function<void()> &fn) {
  for (int i = 0; i < 3; ++i)
    fn();
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    auto start = std::chrono::steady_clock::now();
    fn();
    t.push_back(std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - start)
                    .count());
  }
  std::sort(t.begin(), t.end());
  std::printf("%s %.4f %.4f %.4f\n", name.c_str(), t[t.size() / 2], t.front(),
              t.back());
  std::fflush(stdout);
}

int main(int argc, char **argv) {
  int runs = argc > 1 ? std::atoi(argv[1]) : 10;
  // GEMM, OpenBLAS, 1 and 2 threads.
  for (int threads : {1, 2}) {
    openblas_set_num_threads(threads);
    for (int n : {256, 512, 1024}) {
      std::vector<float> a(n * n, 1.0f), b(n * n, 0.5f), c(n * n);
      measure("openblas_sgemm_" + std::to_string(n) + "_t" +
                  std::to_string(threads),
              runs, [&] {
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n,
                            1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n);
              });
    }
  }

  // Convolutions at ResNet-18 stage shapes and MobileNet depthwise shapes,
  // oneDNN (threads from OMP_NUM_THREADS), NCHW in and out, the layout
  // fx-mlir uses; the same table as CONVS in run.py.
  struct Conv {
    const char *name;
    int c, h, f, k, stride, pad, groups;
  };
  const Conv convs[] = {
      {"conv3x3_1x64x56x56", 64, 56, 64, 3, 1, 1, 1},
      {"conv3x3_1x128x28x28", 128, 28, 128, 3, 1, 1, 1},
      {"conv3x3_1x256x14x14", 256, 14, 256, 3, 1, 1, 1},
      {"conv3x3_1x512x7x7", 512, 7, 512, 3, 1, 1, 1},
      {"conv3x3s2_1x64x56x56", 64, 56, 128, 3, 2, 1, 1},
      {"conv1x1_1x256x14x14", 256, 14, 1024, 1, 1, 0, 1},
      {"conv7x7s2_1x3x224x224", 3, 224, 64, 7, 2, 3, 1},
      {"dwconv3x3_1x32x112x112", 32, 112, 32, 3, 1, 1, 32},
      {"dwconv3x3_1x384x14x14", 384, 14, 384, 3, 1, 1, 384},
      {"conv1x1_1x96x14x14", 96, 14, 576, 1, 1, 0, 1},
      {"conv1x1_1x960x7x7", 960, 7, 160, 1, 1, 0, 1},
      {"conv1x1_1x320x7x7", 320, 7, 1280, 1, 1, 0, 1},
  };
  for (const Conv &cv : convs) {
    using namespace dnnl;
    engine eng(engine::kind::cpu, 0);
    stream s(eng);
    int oh = (cv.h + 2 * cv.pad - cv.k) / cv.stride + 1;
    memory::dims src = {1, cv.c, cv.h, cv.h}, dst = {1, cv.f, oh, oh};
    memory::dims wei =
        cv.groups == 1
            ? memory::dims{cv.f, cv.c, cv.k, cv.k}
            : memory::dims{cv.groups, cv.f / cv.groups, cv.c / cv.groups,
                           cv.k, cv.k};
    auto f32 = memory::data_type::f32;
    auto srcMd = memory::desc(src, f32, memory::format_tag::nchw);
    auto weiMd = memory::desc(wei, f32,
                              cv.groups == 1 ? memory::format_tag::oihw
                                             : memory::format_tag::goihw);
    auto dstMd = memory::desc(dst, f32, memory::format_tag::nchw);
    auto anySrc = memory::desc(src, f32, memory::format_tag::any);
    auto anyWei = memory::desc(wei, f32, memory::format_tag::any);
    auto anyDst = memory::desc(dst, f32, memory::format_tag::any);
    // oneDNN 2.x (Debian 12's libdnnl-dev): an op descriptor, then the
    // primitive descriptor.
    auto desc = convolution_forward::desc(
        prop_kind::forward_inference, algorithm::convolution_direct, anySrc,
        anyWei, anyDst, {cv.stride, cv.stride}, {cv.pad, cv.pad},
        {cv.pad, cv.pad});
    auto pd = convolution_forward::primitive_desc(desc, eng);
    memory srcMem(srcMd, eng), weiMem(weiMd, eng), dstMem(dstMd, eng);
    std::fill_n(static_cast<float *>(srcMem.get_data_handle()),
                size_t(cv.c) * cv.h * cv.h, 1.0f);
    memory srcOpt(pd.src_desc(), eng), weiOpt(pd.weights_desc(), eng),
        dstOpt(pd.dst_desc(), eng);
    reorder(weiMem, weiOpt).execute(s, weiMem, weiOpt);
    convolution_forward conv(pd);
    // Layout conversion of the activations is part of the measured work:
    // fx-mlir reads and writes NCHW. Weights are reordered once.
    measure(std::string("onednn_") + cv.name, runs, [&] {
      reorder(srcMem, srcOpt).execute(s, srcMem, srcOpt);
      conv.execute(s, {{DNNL_ARG_SRC, srcOpt},
                       {DNNL_ARG_WEIGHTS, weiOpt},
                       {DNNL_ARG_DST, dstOpt}});
      reorder(dstOpt, dstMem).execute(s, dstOpt, dstMem);
      s.wait();
    });
  }

  // Memory bandwidth: read two arrays, write one (the traffic of a binary
  // elementwise op), 64 MiB each.
  {
    size_t n = size_t(1) << 24;
    std::vector<float> x(n, 1.0f), y(n, 2.0f), z(n);
    measure("stream_add_2x64MiB_in_64MiB_out", runs, [&] {
      float *__restrict zp = z.data();
      const float *__restrict xp = x.data();
      const float *__restrict yp = y.data();
      for (size_t i = 0; i < n; ++i)
        zp[i] = xp[i] + yp[i];
    });
    // The same with non-temporal stores (no read of each output line before
    // it is written), as fx-mlir writes buffers larger than the cache: the
    // bound is the faster of the two.
    typedef float Lines __attribute__((vector_size(64), aligned(64)));
    Lines *xl = static_cast<Lines *>(std::aligned_alloc(64, n * 4));
    Lines *yl = static_cast<Lines *>(std::aligned_alloc(64, n * 4));
    Lines *zl = static_cast<Lines *>(std::aligned_alloc(64, n * 4));
    std::memcpy(xl, x.data(), n * 4);
    std::memcpy(yl, y.data(), n * 4);
    measure("stream_add_nt_2x64MiB_in_64MiB_out", runs, [&] {
      for (size_t i = 0; i < n / 16; ++i)
        __builtin_nontemporal_store(xl[i] + yl[i], &zl[i]);
      __builtin_ia32_sfence();
    });
    std::free(xl);
    std::free(yl);
    std::free(zl);
  }
  return 0;
}

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

  // 3x3 convolution, ResNet-18 stage 1 shape, oneDNN (threads from
  // OMP_NUM_THREADS), NCHW in and out, the layout fx-mlir uses.
  {
    using namespace dnnl;
    engine eng(engine::kind::cpu, 0);
    stream s(eng);
    memory::dims src = {1, 64, 56, 56}, wei = {64, 64, 3, 3},
                 dst = {1, 64, 56, 56};
    auto srcMd = memory::desc(src, memory::data_type::f32,
                              memory::format_tag::nchw);
    auto weiMd = memory::desc(wei, memory::data_type::f32,
                              memory::format_tag::oihw);
    auto dstMd = memory::desc(dst, memory::data_type::f32,
                              memory::format_tag::nchw);
    auto anySrc = memory::desc(src, memory::data_type::f32,
                               memory::format_tag::any);
    auto anyWei = memory::desc(wei, memory::data_type::f32,
                               memory::format_tag::any);
    auto anyDst = memory::desc(dst, memory::data_type::f32,
                               memory::format_tag::any);
    // oneDNN 2.x (Debian 12's libdnnl-dev): an op descriptor, then the
    // primitive descriptor.
    auto desc = convolution_forward::desc(
        prop_kind::forward_inference, algorithm::convolution_direct, anySrc,
        anyWei, anyDst, {1, 1}, {1, 1}, {1, 1});
    auto pd = convolution_forward::primitive_desc(desc, eng);
    memory srcMem(srcMd, eng), weiMem(weiMd, eng), dstMem(dstMd, eng);
    memory srcOpt(pd.src_desc(), eng), weiOpt(pd.weights_desc(), eng),
        dstOpt(pd.dst_desc(), eng);
    reorder(weiMem, weiOpt).execute(s, weiMem, weiOpt);
    convolution_forward conv(pd);
    // Layout conversion of the activations is part of the measured work:
    // fx-mlir reads and writes NCHW.
    measure("onednn_conv3x3_1x64x56x56", runs, [&] {
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
  }
  return 0;
}

//===- VulkanScheduleTest.cpp - the Vulkan host schedule ------------------===//
//
// fx::buildVulkanSchedule on hand-written lowered host functions: what the
// pipeline's output becomes (buffers, copies, the scalars of dynamic
// dimensions, shape checks, outputs aliasing their allocations), and the
// diagnostics for host code the schedule cannot express, which the pipeline
// does not produce from FX input.
//
//===----------------------------------------------------------------------===//

#include "fx/Compiler/Entry.h"
#include "fx/Compiler/VulkanCompiler.h"
#include "fx/InitAll.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <string>

using namespace fx;
using fx::rt::DType;
using fx::rt::kDynamicDim;
namespace vk = fx::rt::vk;

namespace {

class VulkanScheduleTest : public ::testing::Test {
protected:
  VulkanScheduleTest() {
    mlir::DialectRegistry registry;
    ::fx::registerAllDialects(registry);
    ::fx::registerAllPasses();
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    context.printOpOnDiagnostic(false);
  }

  /// The schedule of @f in `text`, or failure with the diagnostics in
  /// `errors`.
  mlir::FailureOr<vk::Program> schedule(const std::string &text,
                                        rt::FunctionSignature signature) {
    errors.clear();
    mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
      errors += d.str() + "\n";
      for (const mlir::Diagnostic &note : d.getNotes())
        errors += "note: " + note.str() + "\n";
      return mlir::success();
    });
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(text, &context);
    if (!module) {
      ADD_FAILURE() << "does not parse: " << errors;
      return mlir::failure();
    }
    return buildVulkanSchedule(*module, "f", signature);
  }

  static rt::FunctionSignature signature(std::vector<int64_t> in,
                                         std::vector<int64_t> out) {
    rt::FunctionSignature sig;
    sig.inputs = {{"x", DType::F32, std::move(in), false}};
    sig.outputs = {{"y", DType::F32, std::move(out), false}};
    return sig;
  }

  mlir::MLIRContext context;
  std::string errors;
};

TEST_F(VulkanScheduleTest, DynamicAllocationBecomesTheOutput) {
  // What the pipeline leaves for a dynamic result: an allocation sized from
  // the input, a shape check, a copy into the caller's buffer.
  const char *text = R"mlir(
    func.func @f(%x: memref<?x4xf32>, %y: memref<?x4xf32>) {
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %n = memref.dim %x, %c0 : memref<?x4xf32>
      %ok = arith.cmpi sge, %n, %c2 : index
      cf.assert %ok, "needs two rows"
      %t = memref.alloc(%n) : memref<?x4xf32>
      memref.copy %x, %t : memref<?x4xf32> to memref<?x4xf32>
      memref.copy %t, %y : memref<?x4xf32> to memref<?x4xf32>
      return
    })mlir";
  mlir::FailureOr<vk::Program> program =
      schedule(text, signature({kDynamicDim, 4}, {kDynamicDim, 4}));
  ASSERT_TRUE(mlir::succeeded(program)) << errors;
  // The allocation is the output: one copy (input -> output), no temporary.
  ASSERT_EQ(program->buffers.size(), 2u);
  EXPECT_EQ(program->buffers[1].kind, vk::Buffer::Kind::Output);
  ASSERT_EQ(program->copies.size(), 1u);
  EXPECT_EQ(program->copies[0].target, 1u);
  ASSERT_EQ(program->checks.size(), 1u);
  EXPECT_EQ(program->checks[0].message, "needs two rows");
  ASSERT_TRUE(vk::validateProgram(*program).isOk())
      << vk::validateProgram(*program).message();
  rt::Result<vk::Program> five = vk::specializeProgram(*program, {{5, 4}});
  ASSERT_TRUE(five.isOk()) << five.message();
  EXPECT_EQ(five.value().signature.outputs[0].str(), "f32[5, 4]");
  EXPECT_EQ(five.value().buffers[1].bytes, 80u);
  EXPECT_EQ(five.value().copies[0].bytes, 80u);
  EXPECT_EQ(vk::specializeProgram(*program, {{1, 4}}).message(),
            "needs two rows");
}

TEST_F(VulkanScheduleTest, HostCodeOutsideTheSchedule) {
  const char *text = R"mlir(
    func.func @f(%x: memref<4xf32>, %y: memref<4xf32>) {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<4xf32>
      memref.copy %x, %y : memref<4xf32> to memref<4xf32>
      return
    })mlir";
  EXPECT_TRUE(mlir::failed(schedule(text, signature({4}, {4}))));
  EXPECT_EQ(errors,
            "'memref.load' op cannot run on the Vulkan host side (the "
            "schedule holds only allocations, constants, copies, kernel "
            "launches and index arithmetic on the input shapes)\n");
}

TEST_F(VulkanScheduleTest, SizesTheHostDoesNotKnow) {
  // The size of a dynamic output nothing has written yet.
  const char *unknownDim = R"mlir(
    func.func @f(%x: memref<?xf32>, %y: memref<?xf32>) {
      %c0 = arith.constant 0 : index
      %n = memref.dim %y, %c0 : memref<?xf32>
      %t = memref.alloc(%n) : memref<?xf32>
      memref.copy %t, %y : memref<?xf32> to memref<?xf32>
      return
    })mlir";
  EXPECT_TRUE(mlir::failed(
      schedule(unknownDim, signature({kDynamicDim}, {kDynamicDim}))));
  EXPECT_EQ(errors, "'memref.dim' op asks for a size the Vulkan host side "
                    "does not know (a constant dimension of an input or an "
                    "allocation)\n");

  // A dynamic output that nothing writes.
  const char *unwritten = R"mlir(
    func.func @f(%x: memref<?xf32>, %y: memref<?xf32>) {
      return
    })mlir";
  EXPECT_TRUE(mlir::failed(
      schedule(unwritten, signature({kDynamicDim}, {kDynamicDim}))));
  EXPECT_EQ(errors, "output 0 has dynamic dimensions that the Vulkan host "
                    "side cannot size (it is not copied from a buffer of "
                    "known shape)\n");
}

/// A host function launching kernel @k (known block size 64, one storage
/// buffer and one size argument) with grid `grid`, then copying the input
/// to the output; `prelude` defines what the launch uses.
std::string launching(const std::string &prelude, const std::string &grid) {
  return R"mlir(
    module attributes {gpu.container_module} {
      func.func @f(%x: memref<?xf32>, %y: memref<?xf32>) {
        %c0 = arith.constant 0 : index
        %c1 = arith.constant 1 : index
        %c64 = arith.constant 64 : index
        %n = memref.dim %x, %c0 : memref<?xf32>
        )mlir" +
         prelude + R"mlir(
        gpu.launch_func @k::@k blocks in ()mlir" +
         grid +
         R"mlir(, %c1, %c1) threads in (%c64, %c1, %c1) args(%x : memref<?xf32>, %n : index)
        memref.copy %x, %y : memref<?xf32> to memref<?xf32>
        return
      }
      gpu.module @k {
        gpu.func @k(%a: memref<?xf32>, %size: index) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
          gpu.return
        }
      }
      spirv.module @__spv__k Logical GLSL450 requires #spirv.vce<v1.0, [Shader], []> {
        spirv.func @k() "None" {
          spirv.Return
        }
        spirv.EntryPoint "GLCompute" @k
        spirv.ExecutionMode @k "LocalSize", 64, 1, 1
      }
    })mlir";
}

TEST_F(VulkanScheduleTest, PersistentZeros) {
  // State that lives from call to call (split-k's tile counters): a
  // constant of zeros, outside the arena, whatever else is allocated.
  const char *text = R"mlir(
    func.func @f(%x: memref<4xf32>, %y: memref<4xf32>) {
      %t = memref.alloc() : memref<4xf32>
      %n = memref.alloc() {fx.persistent_zeros} : memref<3xi32>
      memref.copy %x, %t : memref<4xf32> to memref<4xf32>
      memref.copy %t, %y : memref<4xf32> to memref<4xf32>
      return
    })mlir";
  mlir::FailureOr<vk::Program> program = schedule(text, signature({4}, {4}));
  ASSERT_TRUE(mlir::succeeded(program)) << errors;
  int constants = 0;
  for (const vk::Buffer &buffer : program->buffers) {
    if (buffer.kind != vk::Buffer::Kind::Constant)
      continue;
    ++constants;
    EXPECT_EQ(buffer.bytes, 12u);
    EXPECT_EQ(buffer.data, std::vector<uint8_t>(12, 0));
  }
  EXPECT_EQ(constants, 1);

  // Of a size known only at run time, it is refused.
  const char *dynamic = R"mlir(
    func.func @f(%x: memref<?xf32>, %y: memref<?xf32>) {
      %c0 = arith.constant 0 : index
      %d = memref.dim %x, %c0 : memref<?xf32>
      %n = memref.alloc(%d) {fx.persistent_zeros} : memref<?xi32>
      memref.copy %x, %y : memref<?xf32> to memref<?xf32>
      return
    })mlir";
  EXPECT_TRUE(
      mlir::failed(schedule(dynamic, signature({kDynamicDim}, {kDynamicDim}))));
  EXPECT_EQ(errors, "'memref.alloc' op persistent state of dynamic size\n");
}

TEST_F(VulkanScheduleTest, DynamicGridAndSizeArgument) {
  mlir::FailureOr<vk::Program> program =
      schedule(launching("%g = arith.ceildivui %n, %c64 : index", "%g"),
               signature({kDynamicDim}, {kDynamicDim}));
  ASSERT_TRUE(mlir::succeeded(program)) << errors;
  ASSERT_EQ(program->dispatches.size(), 1u);
  const vk::Dispatch &dispatch = program->dispatches[0];
  EXPECT_NE(dispatch.workgroupScalars[0], vk::kNoScalar);
  EXPECT_EQ(dispatch.workgroupScalars[1], vk::kNoScalar);
  // The size argument is a Size buffer of the input's dimension.
  ASSERT_EQ(dispatch.buffers.size(), 2u);
  const vk::Buffer &size = program->buffers[dispatch.buffers[1]];
  EXPECT_EQ(size.kind, vk::Buffer::Kind::Size);
  EXPECT_EQ(program->scalars[size.index].op, vk::Scalar::Op::InputDim);
  rt::Result<vk::Program> sized = vk::specializeProgram(*program, {{130}});
  ASSERT_TRUE(sized.isOk()) << sized.message();
  EXPECT_EQ(sized.value().dispatches[0].workgroups,
            (std::array<uint32_t, 3>{3, 1, 1}));
  EXPECT_EQ(sized.value().buffers[dispatch.buffers[1]].data,
            (std::vector<uint8_t>{130, 0, 0, 0}));
}

TEST_F(VulkanScheduleTest, GridSizes) {
  EXPECT_TRUE(mlir::failed(
      schedule(launching("", "%c0"), signature({kDynamicDim}, {kDynamicDim}))));
  EXPECT_EQ(errors,
            "'gpu.launch_func' op needs a positive grid size below 2^32\n");
}

TEST_F(VulkanScheduleTest, ConstantIntoDynamicOutput) {
  // The output's size must come from a buffer whose shape the schedule
  // tracks: an input or an allocation (an input of static shape serves),
  // not a constant.
  const char *input = R"mlir(
    func.func @f(%x: memref<4xf32>, %y: memref<?xf32>) {
      memref.copy %x, %y : memref<4xf32> to memref<?xf32>
      return
    })mlir";
  mlir::FailureOr<vk::Program> program =
      schedule(input, signature({4}, {kDynamicDim}));
  ASSERT_TRUE(mlir::succeeded(program)) << errors;
  rt::Result<vk::Program> four = vk::specializeProgram(*program, {{4}});
  ASSERT_TRUE(four.isOk()) << four.message();
  EXPECT_EQ(four.value().signature.outputs[0].str(), "f32[4]");
  const char *text = R"mlir(
    memref.global "private" constant @c : memref<4xf32> = dense<1.0>
    func.func @f(%x: memref<4xf32>, %y: memref<?xf32>) {
      %c = memref.get_global @c : memref<4xf32>
      memref.copy %c, %y : memref<4xf32> to memref<?xf32>
      return
    })mlir";
  EXPECT_TRUE(mlir::failed(schedule(text, signature({4}, {kDynamicDim}))));
  EXPECT_EQ(errors, "'memref.copy' op copies a buffer of unknown shape into a "
                    "dynamic output\n");
}

TEST_F(VulkanScheduleTest, RetypedViews) {
  // Two buffers in one cast.
  const char *twoToOne = R"mlir(
    func.func @f(%x: memref<4xf32>, %y: memref<4xf32>) {
      %v = builtin.unrealized_conversion_cast %x, %y : memref<4xf32>, memref<4xf32> to memref<8xf32>
      return
    })mlir";
  EXPECT_TRUE(mlir::failed(schedule(twoToOne, signature({4}, {4}))));
  EXPECT_EQ(errors, "'builtin.unrealized_conversion_cast' op is not a "
                    "one-to-one buffer cast\n");
  // A view of another size.
  const char *smaller = R"mlir(
    func.func @f(%x: memref<4xf32>, %y: memref<4xf32>) {
      %v = builtin.unrealized_conversion_cast %x : memref<4xf32> to memref<2xf32>
      memref.copy %x, %y : memref<4xf32> to memref<4xf32>
      return
    })mlir";
  EXPECT_TRUE(mlir::failed(schedule(smaller, signature({4}, {4}))));
  EXPECT_EQ(errors, "'builtin.unrealized_conversion_cast' op is not a view of "
                    "a whole buffer with another element type, which the "
                    "Vulkan host side needs\n");
  // The same bytes with another element type are the same buffer.
  const char *same = R"mlir(
    func.func @f(%x: memref<4xf32>, %y: memref<4xf32>) {
      %v = builtin.unrealized_conversion_cast %x : memref<4xf32> to memref<4xi32>
      %w = builtin.unrealized_conversion_cast %y : memref<4xf32> to memref<4xi32>
      memref.copy %v, %w : memref<4xi32> to memref<4xi32>
      return
    })mlir";
  mlir::FailureOr<vk::Program> program = schedule(same, signature({4}, {4}));
  ASSERT_TRUE(mlir::succeeded(program)) << errors;
  ASSERT_EQ(program->copies.size(), 1u);
  EXPECT_EQ(program->copies[0].source, 0u);
  EXPECT_EQ(program->copies[0].target, 1u);
}

TEST_F(VulkanScheduleTest, SignatureMismatch) {
  const char *text = R"mlir(
    func.func @f(%x: memref<4xf32>) {
      return
    })mlir";
  EXPECT_TRUE(mlir::failed(schedule(text, signature({4}, {4}))));
  EXPECT_EQ(errors, "lowered function takes 1 buffers; expected 1 inputs and "
                    "1 outputs\n");
}

TEST_F(VulkanScheduleTest, ReshapesBindTheSameBuffer) {
  // A flatten and an un-flatten of a dynamic batch between kernels stay on
  // the host: views of the whole buffer, whose sizes (memref.dim of the
  // views) follow from the input's.
  const char *text = R"mlir(
    func.func @f(%x: memref<?x4x8xf32>, %y: memref<?x2x16xf32>) {
      %c0 = arith.constant 0 : index
      %flat = memref.collapse_shape %x [[0], [1, 2]] : memref<?x4x8xf32> into memref<?x32xf32>
      %n = memref.dim %flat, %c0 : memref<?x32xf32>
      %split = memref.expand_shape %flat [[0], [1, 2]] output_shape [%n, 2, 16] : memref<?x32xf32> into memref<?x2x16xf32>
      %m = memref.dim %split, %c0 : memref<?x2x16xf32>
      %t = memref.alloc(%m) : memref<?x2x16xf32>
      memref.copy %split, %t : memref<?x2x16xf32> to memref<?x2x16xf32>
      memref.copy %t, %y : memref<?x2x16xf32> to memref<?x2x16xf32>
      return
    })mlir";
  mlir::FailureOr<vk::Program> program =
      schedule(text, signature({kDynamicDim, 4, 8}, {kDynamicDim, 2, 16}));
  ASSERT_TRUE(mlir::succeeded(program)) << errors;
  // No buffer for either view: the copy reads the input's buffer.
  ASSERT_EQ(program->buffers.size(), 2u);
  ASSERT_EQ(program->copies.size(), 1u);
  EXPECT_EQ(program->copies[0].source, 0u);
  EXPECT_EQ(program->copies[0].target, 1u);
  rt::Result<vk::Program> three = vk::specializeProgram(*program, {{3, 4, 8}});
  ASSERT_TRUE(three.isOk()) << three.message();
  EXPECT_EQ(three.value().signature.outputs[0].str(), "f32[3, 2, 16]");
  EXPECT_EQ(three.value().copies[0].bytes, 3u * 32 * 4);
}

TEST_F(VulkanScheduleTest, ReshapeOfABufferOfUnknownShape) {
  // A dynamic output's size is known only from what is copied into it.
  const char *text = R"mlir(
    func.func @f(%x: memref<?x8xf32>, %y: memref<?x8xf32>) {
      %flat = memref.collapse_shape %y [[0, 1]] : memref<?x8xf32> into memref<?xf32>
      memref.copy %x, %y : memref<?x8xf32> to memref<?x8xf32>
      return
    })mlir";
  EXPECT_TRUE(mlir::failed(
      schedule(text, signature({kDynamicDim, 8}, {kDynamicDim, 8}))));
  EXPECT_EQ(errors, "'memref.collapse_shape' op uses a buffer whose shape "
                    "the Vulkan host side does not know\n");
}

} // namespace

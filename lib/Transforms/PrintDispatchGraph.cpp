//===- PrintDispatchGraph.cpp - the fx-print-dispatch-graph pass ----------===//
//
// Draws what fx-form-dispatch-regions decided: one node per dispatch region
// and the values that flow between regions. Upstream's op-graph printer
// (--view-op-graph) draws every op, including each tile's slices and the
// ops inside the regions' loops; this graph is one level up, the regions
// a user tunes fusion by.
//
//===----------------------------------------------------------------------===//

#include "DispatchRegions.h"

#include "fx/Transforms/LinalgUtils.h"
#include "fx/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXPRINTDISPATCHGRAPH
#include "fx/Transforms/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

using fx::kDispatchAttr;
/// Ops named in a region's box before "and N more".
constexpr size_t kListedMembers = 6;

/// Escapes `text` for a double-quoted DOT string, its lines centred (\n)
/// or left-aligned (\l, each line ended by one).
std::string escape(StringRef text, bool leftAligned = false) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n') {
      out += leftAligned ? "\\l" : "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

/// A tensor type as a short label: 1x64x56x56 f32 (? for dynamic sizes).
std::string typeLabel(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasRank())
    return "";
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(
      shaped.getShape(), os,
      [&](int64_t d) {
        if (ShapedType::isDynamic(d))
          os << '?';
        else
          os << d;
      },
      "x");
  if (shaped.getRank() == 0)
    os << "scalar";
  os << ' ' << shaped.getElementType();
  return text;
}

/// The op name without its dialect (conv_2d_nchw_fchw), or a generic's
/// body ops (generic: maximumf).
std::string opLabel(Operation *op) {
  StringRef name = op->getName().stripDialect();
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic)
    return name.str();
  llvm::SetVector<StringRef> body;
  for (Operation &inner : generic.getBody()->without_terminator())
    if (!isa<arith::ConstantOp>(inner))
      body.insert(inner.getName().stripDialect());
  std::string text = "generic";
  if (!body.empty())
    text += ": " + llvm::join(body.getArrayRef(), ", ");
  return text;
}

struct GraphWriter {
  func::FuncOp func;
  llvm::raw_ostream &os;
  /// Region (or lone op) nodes in program order, with their DOT names.
  llvm::MapVector<Operation *, std::string> nodes;
  /// Nodes computed from parameters alone.
  llvm::DenseSet<Operation *> parameterOnly;

  /// The nodes and arguments `value` comes from, through the ops between
  /// regions (views, pads, concatenations' inserts, fills); constants and
  /// empty tensors bring nothing.
  void sources(Value value, llvm::SetVector<Operation *> &fromNodes,
               llvm::SetVector<unsigned> &fromArgs,
               llvm::DenseSet<Value> &seen) {
    if (!seen.insert(value).second)
      return;
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (arg.getOwner() == &func.getBody().front())
        fromArgs.insert(arg.getArgNumber());
      return;
    }
    Operation *def = value.getDefiningOp();
    // The region op containing `def` (values defined inside a region's
    // loop are the region's).
    for (Operation *at = def; at && at != func; at = at->getParentOp())
      if (nodes.count(at)) {
        fromNodes.insert(at);
        return;
      }
    if (isa<arith::ConstantOp, tensor::EmptyOp>(def))
      return;
    for (Value operand : def->getOperands())
      sources(operand, fromNodes, fromArgs, seen);
  }

  bool isParameter(unsigned arg) {
    return bool(func.getArgAttr(arg, "fx.param"));
  }

  std::string argName(unsigned arg) {
    if (auto name = func.getArgAttrOfType<StringAttr>(arg, "fx.param"))
      return name.str();
    return "arg" + std::to_string(arg);
  }

  /// The box of a region: its id, its ops in program order (the op
  /// itself, or the linalg ops of its loop: a contraction or convolution
  /// and what fused into it), their source names and first place, the
  /// parameters it reads and its result types.
  std::string regionLabel(Operation *op, int64_t parameters) {
    SmallVector<Operation *> members;
    if (isa<linalg::LinalgOp>(op))
      members.push_back(op);
    else
      op->walk([&](linalg::LinalgOp inner) {
        if (!isa<linalg::FillOp>(inner))
          members.push_back(inner);
      });
    std::string text;
    if (auto id = op->getAttrOfType<IntegerAttr>(kDispatchAttr))
      text += "region " + std::to_string(id.getInt()) + "\n";
    for (auto [i, member] : llvm::enumerate(members)) {
      if (i == kListedMembers) {
        text += "and " + std::to_string(members.size() - i) + " more\n";
        break;
      }
      text += opLabel(member) + "\n";
    }
    // The source names of all members (fx::describeLocation: the first
    // name, "+N fused", the first file:line).
    SmallVector<Location> locations;
    for (Operation *member : members)
      locations.push_back(member->getLoc());
    locations.push_back(op->getLoc());
    std::string where =
        fx::describeLocation(FusedLoc::get(func.getContext(), locations), "");
    if (StringRef(where).starts_with(" ("))
      where = "at " + where.substr(2, where.size() - 3);
    if (!where.empty())
      text += where + "\n";
    if (parameters)
      text += "reads " + std::to_string(parameters) + " parameter" +
              (parameters > 1 ? "s" : "") + "\n";
    for (Type type : op->getResultTypes())
      text += "-> " + typeLabel(type) + "\n";
    return text;
  }

  void write() {
    Block &body = func.getBody().front();
    for (Operation &op : body.without_terminator())
      if (op.hasAttr(kDispatchAttr) ||
          (isa<linalg::LinalgOp>(op) && !isa<linalg::FillOp>(op)))
        nodes.insert({&op, "r" + std::to_string(nodes.size())});

    os << "digraph \"" << escape(func.getSymName()) << "\" {\n";
    os << "  // " << nodes.size() << " dispatch region"
       << (nodes.size() == 1 ? "" : "s") << "\n";
    os << "  label=\"" << escape(func.getSymName())
       << ": dispatch regions\"; labelloc=t;\n";
    os << "  node [shape=box, fontname=\"monospace\", fontsize=10];\n";
    os << "  edge [fontname=\"monospace\", fontsize=9];\n";
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      if (!isParameter(i))
        os << "  a" << i << " [shape=ellipse, label=\""
           << escape(argName(i) + "\n" +
                     typeLabel(func.getArgument(i).getType()))
           << "\"];\n";
    // An edge per source, labelled with the types the reader sees of it
    // (a tensor read as it is and through a pad: both).
    auto edge = [&](StringRef from, StringRef to, ArrayRef<Type> types) {
      SmallVector<std::string> labels;
      for (Type type : types)
        labels.push_back(typeLabel(type));
      os << "  " << from << " -> " << to << " [label=\""
         << escape(llvm::join(labels, ", ")) << "\"];\n";
    };
    for (auto &[op, name] : nodes) {
      // The values the region reads: its operands and the values its loop
      // body uses from outside.
      llvm::SetVector<Value> used(op->operand_begin(), op->operand_end());
      getUsedValuesDefinedAbove(op->getRegions(), used);
      llvm::SetVector<Operation *> fromNodes;
      llvm::SetVector<unsigned> fromArgs;
      llvm::MapVector<Operation *, llvm::SetVector<Type>> nodeTypes;
      llvm::MapVector<unsigned, llvm::SetVector<Type>> argTypes;
      for (Value value : used) {
        llvm::SetVector<Operation *> valueNodes;
        llvm::SetVector<unsigned> valueArgs;
        llvm::DenseSet<Value> seen;
        sources(value, valueNodes, valueArgs, seen);
        for (Operation *from : valueNodes)
          if (from != op)
            nodeTypes[from].insert(value.getType());
        for (unsigned arg : valueArgs)
          argTypes[arg].insert(value.getType());
      }
      int64_t parameters = llvm::count_if(
          argTypes, [&](auto &entry) { return isParameter(entry.first); });
      // Computed from parameters alone (batch-norm scales, weight
      // packing): fx-hoist-parameter-computations moves such regions into
      // the prepare function, run once per binding of the weights.
      bool fromParameters = parameters == int64_t(argTypes.size()) &&
                            llvm::all_of(nodeTypes, [&](auto &entry) {
                              return parameterOnly.contains(entry.first);
                            });
      if (fromParameters)
        parameterOnly.insert(op);
      std::string label = regionLabel(op, parameters);
      if (fromParameters)
        label += "(parameters alone: prepared once)\n";
      os << "  " << name << " [label=\"" << escape(label, /*leftAligned=*/true)
         << "\"" << (fromParameters ? ", style=dashed" : "") << "];\n";
      for (auto &[from, types] : nodeTypes)
        edge(nodes.lookup(from), name, types.getArrayRef());
      for (auto &[arg, types] : argTypes)
        if (!isParameter(arg))
          edge("a" + std::to_string(arg), name, types.getArrayRef());
    }
    // The results, and where they come from.
    Operation *terminator = body.getTerminator();
    for (auto [i, value] : llvm::enumerate(terminator->getOperands())) {
      os << "  o" << i << " [shape=ellipse, label=\""
         << escape("result " + std::to_string(i) + "\n" +
                   typeLabel(value.getType()))
         << "\"];\n";
      llvm::SetVector<Operation *> fromNodes;
      llvm::SetVector<unsigned> fromArgs;
      llvm::DenseSet<Value> seen;
      sources(value, fromNodes, fromArgs, seen);
      Type type = value.getType();
      for (Operation *from : fromNodes)
        edge(nodes.lookup(from), "o" + std::to_string(i), type);
      for (unsigned arg : fromArgs)
        if (!isParameter(arg))
          edge("a" + std::to_string(arg), "o" + std::to_string(i), type);
    }
    os << "}\n";
  }
};

struct PrintDispatchGraphPass
    : public fx::impl::FXPrintDispatchGraphBase<PrintDispatchGraphPass> {
  using Base::Base;
  llvm::raw_ostream *stream = nullptr;

  void runOnOperation() override {
    std::unique_ptr<llvm::ToolOutputFile> file;
    llvm::raw_ostream *os = stream;
    if (!os) {
      if (output == "-") {
        os = &llvm::errs();
      } else {
        std::error_code ec;
        file = std::make_unique<llvm::ToolOutputFile>(output, ec,
                                                      llvm::sys::fs::OF_Text);
        if (ec) {
          getOperation().emitError() << "fx-print-dispatch-graph: cannot write "
                                     << output << ": " << ec.message();
          return signalPassFailure();
        }
        os = &file->os();
      }
    }
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal())
        GraphWriter{func, *os, {}, {}}.write();
    os->flush();
    if (file)
      file->keep();
    markAllAnalysesPreserved();
  }
};

} // namespace

std::unique_ptr<Pass>
mlir::fx::createFXPrintDispatchGraphToStream(llvm::raw_ostream &os) {
  auto pass = std::make_unique<PrintDispatchGraphPass>();
  pass->stream = &os;
  return pass;
}

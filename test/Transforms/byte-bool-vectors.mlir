// RUN: fx-opt %s --fx-byte-bool-vectors | FileCheck %s

// Vectors of i1 are loaded and stored as bytes (a boolean tensor's
// layout); scalar i1 accesses and other vectors are left alone.
// CHECK-LABEL: llvm.func @bools
//  CHECK-SAME: (%[[P:.*]]: !llvm.ptr, %[[Q:.*]]: !llvm.ptr, %[[M:.*]]: vector<16xi1>)
//       CHECK: %[[BYTES:.*]] = llvm.load %[[P]] {alignment = 1 : i64} : !llvm.ptr -> vector<16xi8>
//       CHECK: %[[BITS:.*]] = llvm.trunc %[[BYTES]] : vector<16xi8> to vector<16xi1>
//       CHECK: %[[NOT:.*]] = llvm.xor %[[BITS]], %[[M]]
//       CHECK: %[[WIDE:.*]] = llvm.zext %[[NOT]] : vector<16xi1> to vector<16xi8>
//       CHECK: llvm.store %[[WIDE]], %[[Q]] {alignment = 1 : i64} : vector<16xi8>, !llvm.ptr
//       CHECK: %[[ONE:.*]] = llvm.load %[[P]] : !llvm.ptr -> i1
//       CHECK: llvm.store %[[ONE]], %[[Q]] : i1, !llvm.ptr
//       CHECK: llvm.load %[[P]] : !llvm.ptr -> vector<16xf32>
//       CHECK: %[[PASS:.*]] = llvm.zext %[[M]] : vector<16xi1> to vector<16xi8>
//       CHECK: %[[MASKED:.*]] = llvm.intr.masked.load %[[P]], %[[M]], %[[PASS]] {alignment = 1 : i32} : (!llvm.ptr, vector<16xi1>, vector<16xi8>) -> vector<16xi8>
//       CHECK: %[[MBITS:.*]] = llvm.trunc %[[MASKED]] : vector<16xi8> to vector<16xi1>
//       CHECK: %[[MWIDE:.*]] = llvm.zext %[[MBITS]] : vector<16xi1> to vector<16xi8>
//       CHECK: llvm.intr.masked.store %[[MWIDE]], %[[Q]], %[[M]] {alignment = 1 : i32} : vector<16xi8>, vector<16xi1> into !llvm.ptr
llvm.func @bools(%p: !llvm.ptr, %q: !llvm.ptr, %m: vector<16xi1>) {
  %v = llvm.load %p {alignment = 1 : i64} : !llvm.ptr -> vector<16xi1>
  %n = llvm.xor %v, %m : vector<16xi1>
  llvm.store %n, %q {alignment = 1 : i64} : vector<16xi1>, !llvm.ptr
  %s = llvm.load %p : !llvm.ptr -> i1
  llvm.store %s, %q : i1, !llvm.ptr
  %f = llvm.load %p : !llvm.ptr -> vector<16xf32>
  %l = llvm.intr.masked.load %p, %m, %m {alignment = 1 : i32} : (!llvm.ptr, vector<16xi1>, vector<16xi1>) -> vector<16xi1>
  llvm.intr.masked.store %l, %q, %m {alignment = 1 : i32} : vector<16xi1>, vector<16xi1> into !llvm.ptr
  llvm.return
}

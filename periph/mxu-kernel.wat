;; The MXU fast model's multiply-accumulate kernel (periph/mxu-kernel.ts drives
;; it), in WebAssembly SIMD. The memory is the TPU's: the scratchpad at
;; address 0, this kernel's scratch after it. One call of the one export,
;; matmul (its parameters in memory), does
;;   acc[i][j] += Σ_k A[i][k]·B[k][j]   for k0 ≤ k < k1
;; of a D×D MATMUL (D = 8 or 16), in segments of ≤ segK (2048) k, each in
;; three steps:
;;   1. unpack: A's rows (and Bt's, under TRANSPOSE_B) from packed int4 into
;;      int16, one row per `pitch` bytes, k in natural order;
;;   2. transpose8: without TRANSPOSE_B, B's rows (D/2 bytes each, any stride)
;;      into the same column-major int16 layout, 8 rows × 8 columns at a time;
;;   3. mac: the D×D dot products of length len, 8 k per step with
;;      i32x4.dot_i16x8_s (one pmaddwd on x64: 8 products summed in pairs into
;;      int32 lanes), reduced and added into acc once per call;
;; and after the last segment of a command with int4 output, 4. requant: the
;; finished sums saturated and packed, a word per eight elements of a C row.
;; Steps 1–2 for B are skipped when the previous segment unpacked the same B
;; (same bytes at the same place: see $cB).
;; The int4 products are exact in int16 operands, and a lane's int32 sum of a
;; 2048-k segment (at most 512 products of |p| ≤ 64) cannot overflow. Sums
;; wrap mod 2^32 in acc (i32x4.add), exactly as the reference's |0.
;; len is a multiple of 8 (K is a multiple of D), so no step reads past a row.
(module
  (memory (import "tpu" "memory") 1)

  ;; unpack(src, stride, rows, bytes, dst, pitch): row r's `bytes` packed bytes
  ;; at src + r·stride become 2·bytes int16 at dst + r·pitch (element 2q from
  ;; byte q's low nibble). Reads up to 15 bytes past a row and writes up to
  ;; roundup(4·bytes, 64) bytes: the caller leaves room.
  (func $unpack (param $src i32) (param $stride i32) (param $rows i32) (param $bytes i32)
        (param $dst i32) (param $pitch i32)
    (local $r i32) (local $off i32) (local $s i32) (local $d i32)
    (local $x v128) (local $lo v128) (local $hi v128) (local $e v128)
    (block $rowsDone
      (loop $row
        (br_if $rowsDone (i32.ge_u (local.get $r) (local.get $rows)))
        (local.set $s (i32.add (local.get $src) (i32.mul (local.get $r) (local.get $stride))))
        (local.set $d (i32.add (local.get $dst) (i32.mul (local.get $r) (local.get $pitch))))
        (local.set $off (i32.const 0))
        (block $bytesDone
          (loop $chunk
            (br_if $bytesDone (i32.ge_u (local.get $off) (local.get $bytes)))
            (local.set $x (v128.load align=1 (i32.add (local.get $s) (local.get $off))))
            (local.set $lo (i8x16.shr_s (i8x16.shl (local.get $x) (i32.const 4)) (i32.const 4)))
            (local.set $hi (i8x16.shr_s (local.get $x) (i32.const 4)))
            ;; elements 0..15 (bytes 0..7), then 16..31 (bytes 8..15), as int16
            (local.set $e (i8x16.shuffle 0 16 1 17 2 18 3 19 4 20 5 21 6 22 7 23 (local.get $lo) (local.get $hi)))
            (v128.store align=1 (i32.add (local.get $d) (i32.shl (local.get $off) (i32.const 2)))
              (i16x8.extend_low_i8x16_s (local.get $e)))
            (v128.store offset=16 align=1 (i32.add (local.get $d) (i32.shl (local.get $off) (i32.const 2)))
              (i16x8.extend_high_i8x16_s (local.get $e)))
            (local.set $e (i8x16.shuffle 8 24 9 25 10 26 11 27 12 28 13 29 14 30 15 31 (local.get $lo) (local.get $hi)))
            (v128.store offset=32 align=1 (i32.add (local.get $d) (i32.shl (local.get $off) (i32.const 2)))
              (i16x8.extend_low_i8x16_s (local.get $e)))
            (v128.store offset=48 align=1 (i32.add (local.get $d) (i32.shl (local.get $off) (i32.const 2)))
              (i16x8.extend_high_i8x16_s (local.get $e)))
            (local.set $off (i32.add (local.get $off) (i32.const 16)))
            (br $chunk)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $row)))
  )

  ;; transpose8(src, stride, k, dst, pitch, raw): rows 0..k−1 of an 8-column
  ;; int4 block (4 bytes at src + row·stride) become columns: element j of row
  ;; kk goes to dst + j·pitch + 2·kk as an int16. k is a multiple of 8. The
  ;; packed rows are also copied to raw + 4·kk (for same8).
  (func $transpose8 (param $src i32) (param $stride i32) (param $k i32) (param $dst i32) (param $pitch i32) (param $raw i32)
    (local $kk i32) (local $p i32) (local $d i32)
    (local $v0 v128) (local $v1 v128) (local $s01 v128) (local $s23 v128) (local $t v128)
    (block $done
      (loop $group
        (br_if $done (i32.ge_u (local.get $kk) (local.get $k)))
        ;; rows kk..kk+3 into v0, kk+4..kk+7 into v1, one 32-bit lane each
        (local.set $p (i32.add (local.get $src) (i32.mul (local.get $kk) (local.get $stride))))
        (local.set $v0 (v128.load32_zero align=1 (local.get $p)))
        (local.set $p (i32.add (local.get $p) (local.get $stride)))
        (local.set $v0 (v128.load32_lane align=1 1 (local.get $p) (local.get $v0)))
        (local.set $p (i32.add (local.get $p) (local.get $stride)))
        (local.set $v0 (v128.load32_lane align=1 2 (local.get $p) (local.get $v0)))
        (local.set $p (i32.add (local.get $p) (local.get $stride)))
        (local.set $v0 (v128.load32_lane align=1 3 (local.get $p) (local.get $v0)))
        (local.set $p (i32.add (local.get $p) (local.get $stride)))
        (local.set $v1 (v128.load32_zero align=1 (local.get $p)))
        (local.set $p (i32.add (local.get $p) (local.get $stride)))
        (local.set $v1 (v128.load32_lane align=1 1 (local.get $p) (local.get $v1)))
        (local.set $p (i32.add (local.get $p) (local.get $stride)))
        (local.set $v1 (v128.load32_lane align=1 2 (local.get $p) (local.get $v1)))
        (local.set $p (i32.add (local.get $p) (local.get $stride)))
        (local.set $v1 (v128.load32_lane align=1 3 (local.get $p) (local.get $v1)))
        ;; the packed rows as they were, for the next command's same8
        (v128.store align=1 (i32.add (local.get $raw) (i32.shl (local.get $kk) (i32.const 2))) (local.get $v0))
        (v128.store offset=16 align=1 (i32.add (local.get $raw) (i32.shl (local.get $kk) (i32.const 2))) (local.get $v1))
        ;; bytes 0 and 1 of the eight rows, then bytes 2 and 3
        (local.set $s01 (i8x16.shuffle 0 4 8 12 16 20 24 28 1 5 9 13 17 21 25 29 (local.get $v0) (local.get $v1)))
        (local.set $s23 (i8x16.shuffle 2 6 10 14 18 22 26 30 3 7 11 15 19 23 27 31 (local.get $v0) (local.get $v1)))
        (local.set $d (i32.add (local.get $dst) (i32.shl (local.get $kk) (i32.const 1))))
        ;; low nibbles: columns 0 | 2 and 4 | 6; high nibbles: 1 | 3 and 5 | 7
        (local.set $t (i8x16.shr_s (i8x16.shl (local.get $s01) (i32.const 4)) (i32.const 4)))
        (v128.store align=1 (local.get $d) (i16x8.extend_low_i8x16_s (local.get $t)))
        (v128.store align=1 (i32.add (local.get $d) (i32.mul (local.get $pitch) (i32.const 2))) (i16x8.extend_high_i8x16_s (local.get $t)))
        (local.set $t (i8x16.shr_s (local.get $s01) (i32.const 4)))
        (v128.store align=1 (i32.add (local.get $d) (local.get $pitch)) (i16x8.extend_low_i8x16_s (local.get $t)))
        (v128.store align=1 (i32.add (local.get $d) (i32.mul (local.get $pitch) (i32.const 3))) (i16x8.extend_high_i8x16_s (local.get $t)))
        (local.set $t (i8x16.shr_s (i8x16.shl (local.get $s23) (i32.const 4)) (i32.const 4)))
        (v128.store align=1 (i32.add (local.get $d) (i32.mul (local.get $pitch) (i32.const 4))) (i16x8.extend_low_i8x16_s (local.get $t)))
        (v128.store align=1 (i32.add (local.get $d) (i32.mul (local.get $pitch) (i32.const 6))) (i16x8.extend_high_i8x16_s (local.get $t)))
        (local.set $t (i8x16.shr_s (local.get $s23) (i32.const 4)))
        (v128.store align=1 (i32.add (local.get $d) (i32.mul (local.get $pitch) (i32.const 5))) (i16x8.extend_low_i8x16_s (local.get $t)))
        (v128.store align=1 (i32.add (local.get $d) (i32.mul (local.get $pitch) (i32.const 7))) (i16x8.extend_high_i8x16_s (local.get $t)))
        (local.set $kk (i32.add (local.get $kk) (i32.const 8)))
        (br $group)))
  )

  ;; same8(src, stride, k, raw): 1 when rows 0..k−1 of an 8-column block (4
  ;; bytes at src + row·stride) still equal the 4·k bytes transpose8 copied to
  ;; raw, else 0. The same loads as transpose8 (one 16-byte load per four rows
  ;; when they are back to back), without its unpacking and stores.
  (func $same8 (param $src i32) (param $stride i32) (param $k i32) (param $raw i32) (result i32)
    (local $kk i32) (local $p i32) (local $v0 v128) (local $v1 v128)
    (block $done
      (loop $group
        (br_if $done (i32.ge_u (local.get $kk) (local.get $k)))
        (local.set $p (i32.add (local.get $src) (i32.mul (local.get $kk) (local.get $stride))))
        (if (i32.eq (local.get $stride) (i32.const 4))
          (then
            (local.set $v0 (v128.load align=1 (local.get $p)))
            (local.set $v1 (v128.load offset=16 align=1 (local.get $p))))
          (else
            (local.set $v0 (v128.load32_zero align=1 (local.get $p)))
            (local.set $p (i32.add (local.get $p) (local.get $stride)))
            (local.set $v0 (v128.load32_lane align=1 1 (local.get $p) (local.get $v0)))
            (local.set $p (i32.add (local.get $p) (local.get $stride)))
            (local.set $v0 (v128.load32_lane align=1 2 (local.get $p) (local.get $v0)))
            (local.set $p (i32.add (local.get $p) (local.get $stride)))
            (local.set $v0 (v128.load32_lane align=1 3 (local.get $p) (local.get $v0)))
            (local.set $p (i32.add (local.get $p) (local.get $stride)))
            (local.set $v1 (v128.load32_zero align=1 (local.get $p)))
            (local.set $p (i32.add (local.get $p) (local.get $stride)))
            (local.set $v1 (v128.load32_lane align=1 1 (local.get $p) (local.get $v1)))
            (local.set $p (i32.add (local.get $p) (local.get $stride)))
            (local.set $v1 (v128.load32_lane align=1 2 (local.get $p) (local.get $v1)))
            (local.set $p (i32.add (local.get $p) (local.get $stride)))
            (local.set $v1 (v128.load32_lane align=1 3 (local.get $p) (local.get $v1)))))
        (local.set $p (i32.add (local.get $raw) (i32.shl (local.get $kk) (i32.const 2))))
        (if (v128.any_true (v128.or
              (v128.xor (local.get $v0) (v128.load align=1 (local.get $p)))
              (v128.xor (local.get $v1) (v128.load offset=16 align=1 (local.get $p)))))
          (then (return (i32.const 0))))
        (local.set $kk (i32.add (local.get $kk) (i32.const 8)))
        (br $group)))
    (i32.const 1)
  )

  ;; saveRows(src, stride, rows, bytes, raw): row r's `bytes` bytes (a multiple
  ;; of 4) at src + r·stride to raw + r·bytes, 16 at a time (reads up to 12
  ;; bytes past a row and writes up to 12 past the last: the caller leaves room).
  (func $saveRows (param $src i32) (param $stride i32) (param $rows i32) (param $bytes i32) (param $raw i32)
    (local $r i32) (local $off i32) (local $s i32) (local $d i32)
    (block $rowsDone
      (loop $row
        (br_if $rowsDone (i32.ge_u (local.get $r) (local.get $rows)))
        (local.set $s (i32.add (local.get $src) (i32.mul (local.get $r) (local.get $stride))))
        (local.set $d (i32.add (local.get $raw) (i32.mul (local.get $r) (local.get $bytes))))
        (local.set $off (i32.const 0))
        (block $bytesDone
          (loop $chunk
            (br_if $bytesDone (i32.ge_u (local.get $off) (local.get $bytes)))
            (v128.store align=1 (i32.add (local.get $d) (local.get $off)) (v128.load align=1 (i32.add (local.get $s) (local.get $off))))
            (local.set $off (i32.add (local.get $off) (i32.const 16)))
            (br $chunk)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $row)))
  )

  ;; sameRows(src, stride, rows, bytes, raw): 1 when every row still equals
  ;; what saveRows copied, else 0 (16 bytes at a time, the rest by words).
  (func $sameRows (param $src i32) (param $stride i32) (param $rows i32) (param $bytes i32) (param $raw i32) (result i32)
    (local $r i32) (local $off i32) (local $s i32) (local $d i32)
    (block $rowsDone
      (loop $row
        (br_if $rowsDone (i32.ge_u (local.get $r) (local.get $rows)))
        (local.set $s (i32.add (local.get $src) (i32.mul (local.get $r) (local.get $stride))))
        (local.set $d (i32.add (local.get $raw) (i32.mul (local.get $r) (local.get $bytes))))
        (local.set $off (i32.const 0))
        (block $vectorsDone
          (loop $vector
            (br_if $vectorsDone (i32.gt_u (i32.add (local.get $off) (i32.const 16)) (local.get $bytes)))
            (if (v128.any_true (v128.xor (v128.load align=1 (i32.add (local.get $s) (local.get $off)))
                                         (v128.load align=1 (i32.add (local.get $d) (local.get $off)))))
              (then (return (i32.const 0))))
            (local.set $off (i32.add (local.get $off) (i32.const 16)))
            (br $vector)))
        (block $wordsDone
          (loop $word
            (br_if $wordsDone (i32.ge_u (local.get $off) (local.get $bytes)))
            (if (i32.ne (i32.load align=1 (i32.add (local.get $s) (local.get $off))) (i32.load align=1 (i32.add (local.get $d) (local.get $off))))
              (then (return (i32.const 0))))
            (local.set $off (i32.add (local.get $off) (i32.const 4)))
            (br $word)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $row)))
    (i32.const 1)
  )

  ;; [Σ lanes of w, Σ lanes of x, Σ lanes of y, Σ lanes of z] of four int32x4.
  (func $sum4 (param $w v128) (param $x v128) (param $y v128) (param $z v128) (result v128)
    (local $p v128) (local $q v128)
    ;; p = [w0+w2, x0+x2, w1+w3, x1+x3], q the same of y and z
    (local.set $p (i32x4.add
      (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $w) (local.get $x))
      (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $w) (local.get $x))))
    (local.set $q (i32x4.add
      (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $y) (local.get $z))
      (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $y) (local.get $z))))
    (i32x4.add
      (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $p) (local.get $q))
      (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $p) (local.get $q)))
  )

  ;; mac(au, bu, pitch, len, dim, acc): acc[i·dim + j] += Σ_{k<len} au[i·pitch + 2k]·bu[j·pitch + 2k]
  ;; (int16 elements) for i, j < dim, two rows i by four columns j at a time (14 vectors live).
  (func $mac (param $au i32) (param $bu i32) (param $pitch i32) (param $len i32) (param $dim i32) (param $acc i32)
    (local $i i32) (local $j i32) (local $c i32) (local $end i32) (local $at i32)
    (local $pa0 i32) (local $pa1 i32) (local $pb0 i32) (local $pb1 i32) (local $pb2 i32) (local $pb3 i32)
    (local $a0 v128) (local $a1 v128) (local $b v128)
    (local $s00 v128) (local $s01 v128) (local $s02 v128) (local $s03 v128)
    (local $s10 v128) (local $s11 v128) (local $s12 v128) (local $s13 v128)
    (local.set $end (i32.shl (local.get $len) (i32.const 1)))
    (block $iDone
      (loop $iLoop
        (br_if $iDone (i32.ge_u (local.get $i) (local.get $dim)))
        (local.set $pa0 (i32.add (local.get $au) (i32.mul (local.get $i) (local.get $pitch))))
        (local.set $pa1 (i32.add (local.get $pa0) (local.get $pitch)))
        (local.set $j (i32.const 0))
        (block $jDone
          (loop $jLoop
            (br_if $jDone (i32.ge_u (local.get $j) (local.get $dim)))
            (local.set $pb0 (i32.add (local.get $bu) (i32.mul (local.get $j) (local.get $pitch))))
            (local.set $pb1 (i32.add (local.get $pb0) (local.get $pitch)))
            (local.set $pb2 (i32.add (local.get $pb1) (local.get $pitch)))
            (local.set $pb3 (i32.add (local.get $pb2) (local.get $pitch)))
            (local.set $s00 (v128.const i32x4 0 0 0 0)) (local.set $s01 (v128.const i32x4 0 0 0 0))
            (local.set $s02 (v128.const i32x4 0 0 0 0)) (local.set $s03 (v128.const i32x4 0 0 0 0))
            (local.set $s10 (v128.const i32x4 0 0 0 0)) (local.set $s11 (v128.const i32x4 0 0 0 0))
            (local.set $s12 (v128.const i32x4 0 0 0 0)) (local.set $s13 (v128.const i32x4 0 0 0 0))
            (local.set $c (i32.const 0))
            (block $kDone
              (loop $kLoop
                (br_if $kDone (i32.ge_u (local.get $c) (local.get $end)))
                (local.set $a0 (v128.load align=1 (i32.add (local.get $pa0) (local.get $c))))
                (local.set $a1 (v128.load align=1 (i32.add (local.get $pa1) (local.get $c))))
                (local.set $b (v128.load align=1 (i32.add (local.get $pb0) (local.get $c))))
                (local.set $s00 (i32x4.add (local.get $s00) (i32x4.dot_i16x8_s (local.get $a0) (local.get $b))))
                (local.set $s10 (i32x4.add (local.get $s10) (i32x4.dot_i16x8_s (local.get $a1) (local.get $b))))
                (local.set $b (v128.load align=1 (i32.add (local.get $pb1) (local.get $c))))
                (local.set $s01 (i32x4.add (local.get $s01) (i32x4.dot_i16x8_s (local.get $a0) (local.get $b))))
                (local.set $s11 (i32x4.add (local.get $s11) (i32x4.dot_i16x8_s (local.get $a1) (local.get $b))))
                (local.set $b (v128.load align=1 (i32.add (local.get $pb2) (local.get $c))))
                (local.set $s02 (i32x4.add (local.get $s02) (i32x4.dot_i16x8_s (local.get $a0) (local.get $b))))
                (local.set $s12 (i32x4.add (local.get $s12) (i32x4.dot_i16x8_s (local.get $a1) (local.get $b))))
                (local.set $b (v128.load align=1 (i32.add (local.get $pb3) (local.get $c))))
                (local.set $s03 (i32x4.add (local.get $s03) (i32x4.dot_i16x8_s (local.get $a0) (local.get $b))))
                (local.set $s13 (i32x4.add (local.get $s13) (i32x4.dot_i16x8_s (local.get $a1) (local.get $b))))
                (local.set $c (i32.add (local.get $c) (i32.const 16)))
                (br $kLoop)))
            ;; acc[i][j..j+3] and acc[i+1][j..j+3] += the four sums of each row
            (local.set $at (i32.add (local.get $acc)
              (i32.shl (i32.add (i32.mul (local.get $i) (local.get $dim)) (local.get $j)) (i32.const 2))))
            (v128.store align=4 (local.get $at) (i32x4.add (v128.load align=4 (local.get $at))
              (call $sum4 (local.get $s00) (local.get $s01) (local.get $s02) (local.get $s03))))
            (local.set $at (i32.add (local.get $at) (i32.shl (local.get $dim) (i32.const 2))))
            (v128.store align=4 (local.get $at) (i32x4.add (v128.load align=4 (local.get $at))
              (call $sum4 (local.get $s10) (local.get $s11) (local.get $s12) (local.get $s13))))
            (local.set $j (i32.add (local.get $j) (i32.const 4)))
            (br $jLoop)))
        (local.set $i (i32.add (local.get $i) (i32.const 2)))
        (br $iLoop)))
  )
  ;; requant(acc, dim, shift, out): every C row as int4, sat4(rshift(x, shift))
  ;; of PLATFORM.md §6.2 (shift 0..31): the eight elements from acc + 4·(i·dim + j)
  ;; become one little-endian word at out + 4·(i·dim/8 + j/8), element e in
  ;; bits 4e..4e+3 (two nibbles per byte, the even element low).
  (func $requant (param $acc i32) (param $dim i32) (param $shift i32) (param $out i32)
    (local $at i32) (local $end i32) (local $lo v128) (local $hi v128) (local $v v128)
    (local.set $at (local.get $acc))
    (local.set $end (i32.add (local.get $acc) (i32.shl (i32.mul (local.get $dim) (local.get $dim)) (i32.const 2))))
    (block $done
      (loop $eight
        (br_if $done (i32.ge_u (local.get $at) (local.get $end)))
        (local.set $lo (v128.load align=4 (local.get $at)))
        (local.set $hi (v128.load offset=16 align=4 (local.get $at)))
        (if (local.get $shift)
          (then
            ;; (x >> s) + ((x >> (s − 1)) & 1): x / 2^s rounded, without overflow
            (local.set $lo (i32x4.add (i32x4.shr_s (local.get $lo) (local.get $shift))
              (v128.and (i32x4.shr_s (local.get $lo) (i32.sub (local.get $shift) (i32.const 1))) (v128.const i32x4 1 1 1 1))))
            (local.set $hi (i32x4.add (i32x4.shr_s (local.get $hi) (local.get $shift))
              (v128.and (i32x4.shr_s (local.get $hi) (i32.sub (local.get $shift) (i32.const 1))) (v128.const i32x4 1 1 1 1))))))
        ;; saturate to −8..7, keep the nibble, and move element e to bits 4e (the products wrap: only the bits count)
        (local.set $lo (i32x4.mul
          (v128.and (i32x4.min_s (i32x4.max_s (local.get $lo) (v128.const i32x4 -8 -8 -8 -8)) (v128.const i32x4 7 7 7 7)) (v128.const i32x4 15 15 15 15))
          (v128.const i32x4 1 16 256 4096)))
        (local.set $hi (i32x4.mul
          (v128.and (i32x4.min_s (i32x4.max_s (local.get $hi) (v128.const i32x4 -8 -8 -8 -8)) (v128.const i32x4 7 7 7 7)) (v128.const i32x4 15 15 15 15))
          (v128.const i32x4 65536 1048576 16777216 268435456)))
        (local.set $v (v128.or (local.get $lo) (local.get $hi)))
        (local.set $v (v128.or (local.get $v) (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $v) (local.get $v))))
        (local.set $v (v128.or (local.get $v) (i8x16.shuffle 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 (local.get $v) (local.get $v))))
        (i32.store (local.get $out) (i32x4.extract_lane 0 (local.get $v)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (local.set $at (i32.add (local.get $at) (i32.const 32)))
        (br $eight)))
  )

;; The B operand the kernel's bu holds, unpacked: its first byte's address,
  ;; stride, layout, k count and dim (cB −1: none). Consecutive commands often
  ;; multiply by the same B (a weight tile against several row blocks of A):
  ;; when the geometry matches and its bytes still equal the copy in raw
  ;; (same8, sameRows: compared, not assumed), bu is what unpacking would
  ;; write again, and the B preparation is skipped.
  (global $cB (mut i32) (i32.const -1))
  (global $cStride (mut i32) (i32.const 0))
  (global $cTransposed (mut i32) (i32.const 0))
  (global $cLen (mut i32) (i32.const 0))
  (global $cDim (mut i32) (i32.const 0))

  ;; matmul(p): reads its 16 int32 parameters at address p (periph/mxu-kernel.ts
  ;; writes them there: a call with one argument crosses from JavaScript faster
  ;; than one with sixteen):
  ;;   dim, a, aStride, b, bStride, transposeB, k0, k1, shift, au, bu, pitch, acc, segK, out, raw
  ;; and does acc[i·dim + j] += Σ_{k0 ≤ k < k1} A[i][k]·B[k][j], A's row i at
  ;; a + i·aStride, B's row k at b + k·bStride (transposeB = 0) or Bt's row j
  ;; at b + j·bStride; segment by segment of ≤ segK k: unpack, transpose8 (or
  ;; unpack Bt) unless bu holds that B already, mac. Then, when shift ≥ 0 (the
  ;; command's last reads, int4 output), requant of the finished sums into out.
  ;; One call per command, so the JS-to-WebAssembly crossing is paid once.
  (func (export "matmul") (param $p i32)
    (local $dim i32) (local $a i32) (local $aStride i32) (local $b i32) (local $bStride i32)
    (local $transposeB i32) (local $k0 i32) (local $k1 i32) (local $au i32) (local $bu i32) (local $pitch i32)
    (local $acc i32) (local $segK i32) (local $shift i32) (local $out i32) (local $raw i32)
    (local $s i32) (local $len i32) (local $h i32) (local $bSeg i32) (local $same i32)
    (local.set $dim (i32.load offset=0 (local.get $p)))
    (local.set $a (i32.load offset=4 (local.get $p)))
    (local.set $aStride (i32.load offset=8 (local.get $p)))
    (local.set $b (i32.load offset=12 (local.get $p)))
    (local.set $bStride (i32.load offset=16 (local.get $p)))
    (local.set $transposeB (i32.load offset=20 (local.get $p)))
    (local.set $k0 (i32.load offset=24 (local.get $p)))
    (local.set $k1 (i32.load offset=28 (local.get $p)))
    (local.set $shift (i32.load offset=32 (local.get $p)))
    (local.set $au (i32.load offset=36 (local.get $p)))
    (local.set $bu (i32.load offset=40 (local.get $p)))
    (local.set $pitch (i32.load offset=44 (local.get $p)))
    (local.set $acc (i32.load offset=48 (local.get $p)))
    (local.set $segK (i32.load offset=52 (local.get $p)))
    (local.set $out (i32.load offset=56 (local.get $p)))
    (local.set $raw (i32.load offset=60 (local.get $p)))
    (local.set $s (local.get $k0))
    (block $done
      (loop $segment
        (br_if $done (i32.ge_u (local.get $s) (local.get $k1)))
        (local.set $len (i32.sub (local.get $k1) (local.get $s)))
        (if (i32.gt_u (local.get $len) (local.get $segK)) (then (local.set $len (local.get $segK))))
        (call $unpack (i32.add (local.get $a) (i32.shr_u (local.get $s) (i32.const 1))) (local.get $aStride) (local.get $dim)
          (i32.shr_u (local.get $len) (i32.const 1)) (local.get $au) (local.get $pitch))
        ;; this segment's B: Bt's rows from byte s/2 on, or B's rows from row s on
        (local.set $bSeg (if (result i32) (local.get $transposeB)
          (then (i32.add (local.get $b) (i32.shr_u (local.get $s) (i32.const 1))))
          (else (i32.add (local.get $b) (i32.mul (local.get $s) (local.get $bStride))))))
        (local.set $same (i32.and (i32.and
          (i32.and (i32.eq (global.get $cB) (local.get $bSeg)) (i32.eq (global.get $cStride) (local.get $bStride)))
          (i32.and (i32.eq (global.get $cTransposed) (local.get $transposeB)) (i32.eq (global.get $cLen) (local.get $len))))
          (i32.eq (global.get $cDim) (local.get $dim))))
        (if (local.get $transposeB)
          (then
            (if (local.get $same)
              (then (local.set $same (call $sameRows (local.get $bSeg) (local.get $bStride) (local.get $dim)
                (i32.shr_u (local.get $len) (i32.const 1)) (local.get $raw)))))
            (if (i32.eqz (local.get $same))
              (then
                (call $unpack (local.get $bSeg) (local.get $bStride) (local.get $dim)
                  (i32.shr_u (local.get $len) (i32.const 1)) (local.get $bu) (local.get $pitch))
                (call $saveRows (local.get $bSeg) (local.get $bStride) (local.get $dim)
                  (i32.shr_u (local.get $len) (i32.const 1)) (local.get $raw)))))
          (else
            ;; eight columns (four bytes of each B row) per pass, pass h's rows at raw + (h/8)·4·len
            (local.set $h (i32.const 0))
            (block $checked
              (loop $check
                (br_if $checked (i32.or (i32.eqz (local.get $same)) (i32.ge_u (local.get $h) (local.get $dim))))
                (local.set $same (call $same8 (i32.add (local.get $bSeg) (i32.shr_u (local.get $h) (i32.const 1)))
                  (local.get $bStride) (local.get $len)
                  (i32.add (local.get $raw) (i32.mul (i32.shr_u (local.get $h) (i32.const 3)) (i32.shl (local.get $len) (i32.const 2))))))
                (local.set $h (i32.add (local.get $h) (i32.const 8)))
                (br $check)))
            (if (i32.eqz (local.get $same))
              (then
                (local.set $h (i32.const 0))
                (block $colsDone
                  (loop $cols
                    (br_if $colsDone (i32.ge_u (local.get $h) (local.get $dim)))
                    (call $transpose8 (i32.add (local.get $bSeg) (i32.shr_u (local.get $h) (i32.const 1)))
                      (local.get $bStride) (local.get $len)
                      (i32.add (local.get $bu) (i32.mul (local.get $h) (local.get $pitch))) (local.get $pitch)
                      (i32.add (local.get $raw) (i32.mul (i32.shr_u (local.get $h) (i32.const 3)) (i32.shl (local.get $len) (i32.const 2)))))
                    (local.set $h (i32.add (local.get $h) (i32.const 8)))
                    (br $cols)))))))
        (global.set $cB (local.get $bSeg))
        (global.set $cStride (local.get $bStride))
        (global.set $cTransposed (local.get $transposeB))
        (global.set $cLen (local.get $len))
        (global.set $cDim (local.get $dim))
        (call $mac (local.get $au) (local.get $bu) (local.get $pitch) (local.get $len) (local.get $dim) (local.get $acc))
        (local.set $s (i32.add (local.get $s) (local.get $len)))
        (br $segment)))
    (if (i32.ge_s (local.get $shift) (i32.const 0))
      (then (call $requant (local.get $acc) (local.get $dim) (local.get $shift) (local.get $out))))
  )
)

;; An int16 matrix-vector product in WebAssembly SIMD, for the golden model
;; (model/golden-kernel.ts) and the seed MXU's fast datapath (boards/transformer-tpu-int4/mxu.ts): acc[j] = sum_i x[i] * wt[j*stride/2 + i], int32 wrapping, for j < n
;; (stride: bytes from one row of wt to the next, at least 2k).
;; x and the transposed weights wt are int16 (the int4 values widened), k a
;; multiple of 8 (rows padded with zeros); i32x4.dot_i16x8_s multiplies eight
;; pairs and adds them in pairs into four int32 lanes. Integer addition
;; modulo 2^32 is associative, so any order gives the sequential loop's bits.
;; Four columns per pass (then two, then one) share each load of x.
;; seedmm: the seed MXU's 8x8 sums straight from its packed int4 operand
;; words (widened here, then eight matvecs, or by pairs of k when B's words
;; are its rows: mmPairs). seedrq: its requantized rows.
;; seedmmspad: a whole command's issue phase from the scratchpad in this
;; memory (seedgather, seedmm, seedrq in one call; seedmmat: its arguments in memory).
;; copyrows: the seed DMA's fills of whole words, its SRAM in the same memory.
;; vputables, vpuew: the seed VPU's elementwise ops on whole words of the scratchpad in this
;; memory, 32 int4 lanes a vector, each lane's result looked up with i8x16.swizzle.
(module
  (memory (export "memory") 1)
  ;; The seed VPU's lookup vectors for vpuew, set by vputables: a unary op's result nibble for
  ;; every lane nibble (then the same shifted up by four), or a binary op's for every lane sum
  ;; a + b + 16 in 0..15 (then 16..31).
  (global $vpuT0 (mut v128) (v128.const i64x2 0 0))
  (global $vpuT1 (mut v128) (v128.const i64x2 0 0))
  (func $matvec (export "matvec") (param $x i32) (param $k i32) (param $w i32) (param $n i32) (param $acc i32) (param $stride i32)
    (local $kb i32) (local $i i32) (local $w2 i32) (local $end i32)
    (local $xv v128) (local $s0 v128) (local $s1 v128)
    (local $w3 i32) (local $w4 i32) (local $s2 v128) (local $s3 v128)
    (local.set $kb (i32.shl (local.get $k) (i32.const 1)))
    (local.set $end (i32.add (local.get $acc) (i32.shl (local.get $n) (i32.const 2))))
    ;; four columns at a time: their four sums' lanes added across in one vector (two
    ;; interleaves and adds, twice), where extracting sixteen lanes cost more than the dots of a short k
    (block $quads_done
      (loop $quads
        (br_if $quads_done (i32.gt_u (i32.add (local.get $acc) (i32.const 16)) (local.get $end)))
        (local.set $w2 (i32.add (local.get $w) (local.get $stride)))
        (local.set $w3 (i32.add (local.get $w2) (local.get $stride)))
        (local.set $w4 (i32.add (local.get $w3) (local.get $stride)))
        (local.set $s0 (v128.const i32x4 0 0 0 0))
        (local.set $s1 (v128.const i32x4 0 0 0 0))
        (local.set $s2 (v128.const i32x4 0 0 0 0))
        (local.set $s3 (v128.const i32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (loop $dot4
          (local.set $xv (v128.load (i32.add (local.get $x) (local.get $i))))
          (local.set $s0 (i32x4.add (local.get $s0)
            (i32x4.dot_i16x8_s (local.get $xv) (v128.load (i32.add (local.get $w) (local.get $i))))))
          (local.set $s1 (i32x4.add (local.get $s1)
            (i32x4.dot_i16x8_s (local.get $xv) (v128.load (i32.add (local.get $w2) (local.get $i))))))
          (local.set $s2 (i32x4.add (local.get $s2)
            (i32x4.dot_i16x8_s (local.get $xv) (v128.load (i32.add (local.get $w3) (local.get $i))))))
          (local.set $s3 (i32x4.add (local.get $s3)
            (i32x4.dot_i16x8_s (local.get $xv) (v128.load (i32.add (local.get $w4) (local.get $i))))))
          (local.set $i (i32.add (local.get $i) (i32.const 16)))
          (br_if $dot4 (i32.lt_u (local.get $i) (local.get $kb))))
        ;; (s0.0+s0.2, s1.0+s1.2, s0.1+s0.3, s1.1+s1.3), the same of s2 and s3, then the sums
        (local.set $s0 (i32x4.add
          (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $s0) (local.get $s1))
          (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $s0) (local.get $s1))))
        (local.set $s2 (i32x4.add
          (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $s2) (local.get $s3))
          (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $s2) (local.get $s3))))
        (v128.store align=4 (local.get $acc) (i32x4.add
          (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $s0) (local.get $s2))
          (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $s0) (local.get $s2))))
        (local.set $acc (i32.add (local.get $acc) (i32.const 16)))
        (local.set $w (i32.add (local.get $w4) (local.get $stride)))
        (br $quads)))
    ;; two columns at a time
    (block $pairs_done
      (loop $pairs
        (br_if $pairs_done (i32.gt_u (i32.add (local.get $acc) (i32.const 8)) (local.get $end)))
        (local.set $w2 (i32.add (local.get $w) (local.get $stride)))
        (local.set $s0 (v128.const i32x4 0 0 0 0))
        (local.set $s1 (v128.const i32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (loop $dot
          (local.set $xv (v128.load (i32.add (local.get $x) (local.get $i))))
          (local.set $s0 (i32x4.add (local.get $s0)
            (i32x4.dot_i16x8_s (local.get $xv) (v128.load (i32.add (local.get $w) (local.get $i))))))
          (local.set $s1 (i32x4.add (local.get $s1)
            (i32x4.dot_i16x8_s (local.get $xv) (v128.load (i32.add (local.get $w2) (local.get $i))))))
          (local.set $i (i32.add (local.get $i) (i32.const 16)))
          (br_if $dot (i32.lt_u (local.get $i) (local.get $kb))))
        (i32.store (local.get $acc)
          (i32.add (i32.add (i32x4.extract_lane 0 (local.get $s0)) (i32x4.extract_lane 1 (local.get $s0)))
                   (i32.add (i32x4.extract_lane 2 (local.get $s0)) (i32x4.extract_lane 3 (local.get $s0)))))
        (i32.store offset=4 (local.get $acc)
          (i32.add (i32.add (i32x4.extract_lane 0 (local.get $s1)) (i32x4.extract_lane 1 (local.get $s1)))
                   (i32.add (i32x4.extract_lane 2 (local.get $s1)) (i32x4.extract_lane 3 (local.get $s1)))))
        (local.set $acc (i32.add (local.get $acc) (i32.const 8)))
        (local.set $w (i32.add (local.get $w2) (local.get $stride)))
        (br $pairs)))
    ;; an odd last column
    (if (i32.lt_u (local.get $acc) (local.get $end))
      (then
        (local.set $s0 (v128.const i32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (loop $dot1
          (local.set $s0 (i32x4.add (local.get $s0)
            (i32x4.dot_i16x8_s (v128.load (i32.add (local.get $x) (local.get $i)))
                               (v128.load (i32.add (local.get $w) (local.get $i))))))
          (local.set $i (i32.add (local.get $i) (i32.const 16)))
          (br_if $dot1 (i32.lt_u (local.get $i) (local.get $kb))))
        (i32.store (local.get $acc)
          (i32.add (i32.add (i32x4.extract_lane 0 (local.get $s0)) (i32x4.extract_lane 1 (local.get $s0)))
                   (i32.add (i32x4.extract_lane 2 (local.get $s0)) (i32x4.extract_lane 3 (local.get $s0))))))))
  ;; Words in fetch order (word q: row q%8, k-chunk q/8, a nibble per k) into
  ;; 8 int16 rows `pitch` bytes apart: chunks*8 words. A word's 8 nibbles
  ;; (nibble 0 first) are sign-extended to 8 int16 with int16 operations, which
  ;; x64 has (its bytes have no shifts): each of the word's bytes into the low
  ;; half of two lanes (a shuffle), a multiply that puts the lane's nibble at its
  ;; top (by 2^12 a low nibble, 2^8 a high one; the lane's high byte falls out)
  ;; and an arithmetic shift by 12 that brings it down. Four words (four rows of
  ;; one chunk) a load. (widenDirect does the same.)
  (func $widenRows (param $src i32) (param $chunks i32) (param $dst i32) (param $pitch i32)
    (local $q i32) (local $n i32) (local $x v128) (local $d i32) (local $scale v128) (local $m0 v128) (local $m1 v128) (local $m2 v128) (local $m3 v128)
    (local.set $scale (v128.const i16x8 4096 256 4096 256 4096 256 4096 256))
    (local.set $m0 (v128.const i8x16 0 0 0 0 1 1 1 1 2 2 2 2 3 3 3 3))
    (local.set $m1 (v128.const i8x16 4 4 4 4 5 5 5 5 6 6 6 6 7 7 7 7))
    (local.set $m2 (v128.const i8x16 8 8 8 8 9 9 9 9 10 10 10 10 11 11 11 11))
    (local.set $m3 (v128.const i8x16 12 12 12 12 13 13 13 13 14 14 14 14 15 15 15 15))
    (local.set $n (i32.shl (local.get $chunks) (i32.const 3)))
    (block $done
      (loop $word
        (br_if $done (i32.ge_u (local.get $q) (local.get $n)))
        (local.set $x (v128.load align=1 (i32.add (local.get $src) (i32.shl (local.get $q) (i32.const 2)))))
        (local.set $d (i32.add (local.get $dst)
            (i32.add (i32.mul (i32.and (local.get $q) (i32.const 7)) (local.get $pitch))
                     (i32.shl (i32.shr_u (local.get $q) (i32.const 3)) (i32.const 4)))))
        (v128.store align=1 (local.get $d) (i16x8.shr_s (i16x8.mul (i8x16.swizzle (local.get $x) (local.get $m0)) (local.get $scale)) (i32.const 12)))
        (local.set $d (i32.add (local.get $d) (local.get $pitch)))
        (v128.store align=1 (local.get $d) (i16x8.shr_s (i16x8.mul (i8x16.swizzle (local.get $x) (local.get $m1)) (local.get $scale)) (i32.const 12)))
        (local.set $d (i32.add (local.get $d) (local.get $pitch)))
        (v128.store align=1 (local.get $d) (i16x8.shr_s (i16x8.mul (i8x16.swizzle (local.get $x) (local.get $m2)) (local.get $scale)) (i32.const 12)))
        (local.set $d (i32.add (local.get $d) (local.get $pitch)))
        (v128.store align=1 (local.get $d) (i16x8.shr_s (i16x8.mul (i8x16.swizzle (local.get $x) (local.get $m3)) (local.get $scale)) (i32.const 12)))
        (local.set $q (i32.add (local.get $q) (i32.const 4)))
        (br $word))))

  ;; mmPairs(a16, pitch, bw, kp, acc, pairs): the 64 sums acc[i][j] = sum_{k<kp} A[i][k]*B[k][j]
  ;; with A widened (8 int16 rows at a16, `pitch` apart) and B as its row words (word k:
  ;; B[k][j] in nibble j, kp a multiple of 8). Each pair of rows k, k+1 of B is widened
  ;; once into two vectors at pairs + 32p: (B[k][j], B[k+1][j]) for j 0..3, then 4..7;
  ;; an A row's pair (A[i][k], A[i][k+1]) splat to every lane dots them into four
  ;; columns' sums at once. Four A rows a pass: eight accumulators.
  (func $mmPairs (param $a16 i32) (param $pitch i32) (param $bw i32) (param $kp i32) (param $acc i32) (param $pairs i32)
    (local $p i32) (local $np i32) (local $x v128) (local $lo v128) (local $hi v128)
    (local $row i32) (local $half i32) (local $r0 i32) (local $r1 i32) (local $r2 i32) (local $r3 i32)
    (local $c0l v128) (local $c0h v128) (local $c1l v128) (local $c1h v128)
    (local $c2l v128) (local $c2h v128) (local $c3l v128) (local $c3h v128)
    (local $src i32) (local $dst i32) (local $end i32) (local $scale v128) (local $pa v128) (local $pb v128)
    (local.set $np (i32.shr_u (local.get $kp) (i32.const 1)))
    ;; Each pair's two words (B[k][j] is nibble j of bytes 0-3, B[k+1][j] of bytes 4-7) into the
    ;; two vectors (B[k][0], B[k+1][0], B[k][1], B[k+1][1], ...): every int16 lane gets the byte
    ;; of its nibble in its low half (a byte shuffle), a multiply puts the nibble at the lane's
    ;; top (by 2^12 a low nibble, 2^8 a high one; the lane's high byte falls out) and an
    ;; arithmetic shift by 12 brings it down sign-extended: int16 operations all, which x64 has
    ;; (its bytes have no shifts).
    (local.set $scale (v128.const i16x8 4096 4096 256 256 4096 4096 256 256))
    (local.set $pa (v128.const i8x16 0 0 4 4 0 0 4 4 1 1 5 5 1 1 5 5))
    (local.set $pb (v128.const i8x16 2 2 6 6 2 2 6 6 3 3 7 7 3 3 7 7))
    (local.set $src (local.get $bw))
    (local.set $dst (local.get $pairs))
    (local.set $end (i32.add (local.get $pairs) (i32.shl (local.get $np) (i32.const 5))))
    (block $prep_done
      (loop $prep
        (br_if $prep_done (i32.ge_u (local.get $dst) (local.get $end)))
        (local.set $x (v128.load64_zero align=1 (local.get $src)))
        (v128.store (local.get $dst)
          (i16x8.shr_s (i16x8.mul (i8x16.swizzle (local.get $x) (local.get $pa))
            (local.get $scale)) (i32.const 12)))
        (v128.store offset=16 (local.get $dst)
          (i16x8.shr_s (i16x8.mul (i8x16.swizzle (local.get $x) (local.get $pb))
            (local.get $scale)) (i32.const 12)))
        (local.set $src (i32.add (local.get $src) (i32.const 8)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 32)))
        (br $prep)))
    (loop $halves
      (local.set $r0 (i32.add (local.get $a16) (i32.mul (i32.shl (local.get $half) (i32.const 2)) (local.get $pitch))))
      (local.set $r1 (i32.add (local.get $r0) (local.get $pitch)))
      (local.set $r2 (i32.add (local.get $r1) (local.get $pitch)))
      (local.set $r3 (i32.add (local.get $r2) (local.get $pitch)))
      (local.set $c0l (v128.const i32x4 0 0 0 0)) (local.set $c0h (v128.const i32x4 0 0 0 0))
      (local.set $c1l (v128.const i32x4 0 0 0 0)) (local.set $c1h (v128.const i32x4 0 0 0 0))
      (local.set $c2l (v128.const i32x4 0 0 0 0)) (local.set $c2h (v128.const i32x4 0 0 0 0))
      (local.set $c3l (v128.const i32x4 0 0 0 0)) (local.set $c3h (v128.const i32x4 0 0 0 0))
      ;; Each row's pair and B's pair by a pointer of its own, moved on every pass (the engine
      ;; otherwise works the rows' addresses out again from the pitch at every pass).
      (local.set $row (local.get $pairs))
      (block $k_done
        (loop $k
          (br_if $k_done (i32.ge_u (local.get $row) (local.get $end)))
          (local.set $lo (v128.load (local.get $row)))
          (local.set $hi (v128.load offset=16 (local.get $row)))
          (local.set $x (v128.load32_splat align=1 (local.get $r0)))
          (local.set $c0l (i32x4.add (local.get $c0l) (i32x4.dot_i16x8_s (local.get $x) (local.get $lo))))
          (local.set $c0h (i32x4.add (local.get $c0h) (i32x4.dot_i16x8_s (local.get $x) (local.get $hi))))
          (local.set $x (v128.load32_splat align=1 (local.get $r1)))
          (local.set $c1l (i32x4.add (local.get $c1l) (i32x4.dot_i16x8_s (local.get $x) (local.get $lo))))
          (local.set $c1h (i32x4.add (local.get $c1h) (i32x4.dot_i16x8_s (local.get $x) (local.get $hi))))
          (local.set $x (v128.load32_splat align=1 (local.get $r2)))
          (local.set $c2l (i32x4.add (local.get $c2l) (i32x4.dot_i16x8_s (local.get $x) (local.get $lo))))
          (local.set $c2h (i32x4.add (local.get $c2h) (i32x4.dot_i16x8_s (local.get $x) (local.get $hi))))
          (local.set $x (v128.load32_splat align=1 (local.get $r3)))
          (local.set $c3l (i32x4.add (local.get $c3l) (i32x4.dot_i16x8_s (local.get $x) (local.get $lo))))
          (local.set $c3h (i32x4.add (local.get $c3h) (i32x4.dot_i16x8_s (local.get $x) (local.get $hi))))
          (local.set $r0 (i32.add (local.get $r0) (i32.const 4)))
          (local.set $r1 (i32.add (local.get $r1) (i32.const 4)))
          (local.set $r2 (i32.add (local.get $r2) (i32.const 4)))
          (local.set $r3 (i32.add (local.get $r3) (i32.const 4)))
          (local.set $row (i32.add (local.get $row) (i32.const 32)))
          (br $k)))
      (local.set $row (i32.add (local.get $acc) (i32.shl (local.get $half) (i32.const 7))))
      (v128.store offset=0 align=4 (local.get $row) (local.get $c0l))
      (v128.store offset=16 align=4 (local.get $row) (local.get $c0h))
      (v128.store offset=32 align=4 (local.get $row) (local.get $c1l))
      (v128.store offset=48 align=4 (local.get $row) (local.get $c1h))
      (v128.store offset=64 align=4 (local.get $row) (local.get $c2l))
      (v128.store offset=80 align=4 (local.get $row) (local.get $c2h))
      (v128.store offset=96 align=4 (local.get $row) (local.get $c3l))
      (v128.store offset=112 align=4 (local.get $row) (local.get $c3h))
      (local.set $half (i32.add (local.get $half) (i32.const 1)))
      (br_if $halves (i32.lt_u (local.get $half) (i32.const 2)))))

  ;; seedmm(aw, bw, len, transposed, a16, bt16, pitch, acc): the seed MXU's
  ;; 64 sums acc[i][j] = sum_{k<len} A[i][k]*B[k][j] (int32, row-major at acc)
  ;; from its operand words as fetched: A at aw (word c*8+i: row i, k = 8c..8c+7),
  ;; B at bw (word k: B[k][j] in nibble j; transposed: word c*8+j holds B[8c..8c+7][j]).
  ;; Non-transposed, B's words from len up to the next multiple of 8 must be 0;
  ;; A's lanes past len are zeroed here (the RTL's array never multiplies them).
  ;; a16 and bt16: 8 rows `pitch` bytes apart each (bt16 holds mmPairs' pairs, 16*kp bytes).
  (func $seedmm (export "seedmm") (param $aw i32) (param $bw i32) (param $len i32) (param $transposed i32)
        (param $a16 i32) (param $bt16 i32) (param $pitch i32) (param $acc i32)
    (local $chunks i32) (local $kp i32) (local $i i32) (local $k i32) (local $row i32)
    (local.set $chunks (i32.shr_u (i32.add (local.get $len) (i32.const 7)) (i32.const 3)))
    (local.set $kp (i32.shl (local.get $chunks) (i32.const 3)))
    (call $widenRows (local.get $aw) (local.get $chunks) (local.get $a16) (local.get $pitch))
    (if (i32.lt_u (local.get $len) (local.get $kp))
      (then
        (local.set $i (i32.const 0))
        (loop $rows
          (local.set $row (i32.add (local.get $a16) (i32.mul (local.get $i) (local.get $pitch))))
          (local.set $k (local.get $len))
          (loop $lanes
            (i32.store16 (i32.add (local.get $row) (i32.shl (local.get $k) (i32.const 1))) (i32.const 0))
            (local.set $k (i32.add (local.get $k) (i32.const 1)))
            (br_if $lanes (i32.lt_u (local.get $k) (local.get $kp))))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br_if $rows (i32.lt_u (local.get $i) (i32.const 8))))))
    (if (i32.eqz (local.get $transposed))
      (then
        ;; B's words are its rows: the sums by pairs of k, no transpose (bt16 holds the pairs).
        (call $mmPairs (local.get $a16) (local.get $pitch) (local.get $bw) (local.get $kp) (local.get $acc) (local.get $bt16))
        (return)))
    (call $widenRows (local.get $bw) (local.get $chunks) (local.get $bt16) (local.get $pitch))
    (local.set $i (i32.const 0))
    (loop $arow
      (call $matvec
        (i32.add (local.get $a16) (i32.mul (local.get $i) (local.get $pitch)))
        (local.get $kp) (local.get $bt16) (i32.const 8)
        (i32.add (local.get $acc) (i32.shl (local.get $i) (i32.const 5)))
        (local.get $pitch))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $arow (i32.lt_u (local.get $i) (i32.const 8)))))

  ;; seedrq(acc, m0, n, out): the MXU's requant of its 64 sums (row-major int32 at acc):
  ;; q = clip(floor((acc*m0 + 2^(n-1)) * 2^-n), -8, 7) (the RTL's requant4: the product
  ;; is below 2^43 and the scale a power of two, so the doubles are exact), two lanes a
  ;; vector; each row's eight q packed a nibble per column (column 0 lowest) into the word
  ;; at out + 4*row, and every q as a byte at out + 32 + 8*row + col. Each pair of lanes:
  ;; trunc(max(min(floor((x*m + h) * sc), 7), -8)).
  (func $seedrq (export "seedrq") (param $acc i32) (param $m0 i32) (param $n i32) (param $out i32)
    (local $i i32) (local $m v128) (local $h v128) (local $sc v128) (local $a v128)
    (local $q0 v128) (local $q1 v128) (local $q2 v128) (local $q3 v128) (local $x v128)
    (local.set $m (f64x2.splat (f64.convert_i32_s (local.get $m0))))
    (if (local.get $n)
      (then (local.set $h (f64x2.splat (f64.convert_i32_u (i32.shl (i32.const 1) (i32.sub (local.get $n) (i32.const 1))))))))
    (local.set $sc (f64x2.splat (f64.reinterpret_i64
      (i64.shl (i64.extend_i32_u (i32.sub (i32.const 1023) (local.get $n))) (i64.const 52)))))
    (loop $row
      (local.set $a (v128.load align=4 (local.get $acc)))
      (local.set $q0 (i32x4.trunc_sat_f64x2_s_zero (f64x2.max (f64x2.min (f64x2.floor (f64x2.mul (f64x2.add (f64x2.mul (f64x2.convert_low_i32x4_s (local.get $a)) (local.get $m)) (local.get $h)) (local.get $sc))) (v128.const f64x2 7 7)) (v128.const f64x2 -8 -8))))
      (local.set $q1 (i32x4.trunc_sat_f64x2_s_zero (f64x2.max (f64x2.min (f64x2.floor (f64x2.mul (f64x2.add (f64x2.mul (f64x2.convert_low_i32x4_s (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $a) (local.get $a))) (local.get $m)) (local.get $h)) (local.get $sc))) (v128.const f64x2 7 7)) (v128.const f64x2 -8 -8))))
      (local.set $a (v128.load offset=16 align=4 (local.get $acc)))
      (local.set $q2 (i32x4.trunc_sat_f64x2_s_zero (f64x2.max (f64x2.min (f64x2.floor (f64x2.mul (f64x2.add (f64x2.mul (f64x2.convert_low_i32x4_s (local.get $a)) (local.get $m)) (local.get $h)) (local.get $sc))) (v128.const f64x2 7 7)) (v128.const f64x2 -8 -8))))
      (local.set $q3 (i32x4.trunc_sat_f64x2_s_zero (f64x2.max (f64x2.min (f64x2.floor (f64x2.mul (f64x2.add (f64x2.mul (f64x2.convert_low_i32x4_s (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $a) (local.get $a))) (local.get $m)) (local.get $h)) (local.get $sc))) (v128.const f64x2 7 7)) (v128.const f64x2 -8 -8))))
      ;; the eight q as int8, lanes 0..7
      (local.set $x (i8x16.narrow_i16x8_s
        (i16x8.narrow_i32x4_s
          (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $q0) (local.get $q1))
          (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $q2) (local.get $q3)))
        (v128.const i32x4 0 0 0 0)))
      (v128.store64_lane offset=32 align=1 0 (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 3))) (local.get $x))
      ;; nibbles: each 16-bit lane's low byte q(2k) | q(2k+1) << 4, then the four low bytes
      (local.set $x (v128.and (local.get $x) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15)))
      (local.set $x (v128.or (local.get $x) (i16x8.shr_u (local.get $x) (i32.const 4))))
      (i32.store (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 2)))
        (i32x4.extract_lane 0 (i8x16.shuffle 0 2 4 6 0 0 0 0 0 0 0 0 0 0 0 0 (local.get $x) (local.get $x))))
      (local.set $acc (i32.add (local.get $acc) (i32.const 32)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $row (i32.lt_u (local.get $i) (i32.const 8)))))

;; widenDirect(spad, base, stride, chunks, dst, pitch): the 8 rows of an operand read in place
  ;; from the 64 KiB scratchpad at spad (row i: `chunks` consecutive words from the word of byte
  ;; address (base + i*stride) mod 2^16) into 8 int16 rows `pitch` bytes apart at dst, as
  ;; widenRows leaves them. Four chunks (16 bytes) a load: a row's last load may take up to three
  ;; words past its end, and its stores reach up to 48 bytes past the row (the next row's start,
  ;; written after it, or the room after the eighth); the caller checks (directFits) that no
  ;; row's loads leave the scratchpad.
  (func $widenDirect (param $spad i32) (param $base i32) (param $stride i32) (param $chunks i32) (param $dst i32) (param $pitch i32)
    (local $i i32) (local $g i32) (local $groups i32) (local $s i32) (local $d i32)
    (local $x v128) (local $scale v128) (local $m0 v128) (local $m1 v128) (local $m2 v128) (local $m3 v128)
    (local.set $scale (v128.const i16x8 4096 256 4096 256 4096 256 4096 256))
    (local.set $m0 (v128.const i8x16 0 0 0 0 1 1 1 1 2 2 2 2 3 3 3 3))
    (local.set $m1 (v128.const i8x16 4 4 4 4 5 5 5 5 6 6 6 6 7 7 7 7))
    (local.set $m2 (v128.const i8x16 8 8 8 8 9 9 9 9 10 10 10 10 11 11 11 11))
    (local.set $m3 (v128.const i8x16 12 12 12 12 13 13 13 13 14 14 14 14 15 15 15 15))
    (local.set $groups (i32.shr_u (i32.add (local.get $chunks) (i32.const 3)) (i32.const 2)))
    (loop $row
      (local.set $s (i32.add (local.get $spad)
        (i32.and (i32.add (local.get $base) (i32.mul (local.get $i) (local.get $stride))) (i32.const 0xfffc))))
      (local.set $d (i32.add (local.get $dst) (i32.mul (local.get $i) (local.get $pitch))))
      (local.set $g (i32.const 0))
      (loop $group
        (local.set $x (v128.load align=1 (local.get $s)))
        (v128.store align=1 (local.get $d) (i16x8.shr_s (i16x8.mul (i8x16.swizzle (local.get $x) (local.get $m0)) (local.get $scale)) (i32.const 12)))
        (v128.store offset=16 align=1 (local.get $d) (i16x8.shr_s (i16x8.mul (i8x16.swizzle (local.get $x) (local.get $m1)) (local.get $scale)) (i32.const 12)))
        (v128.store offset=32 align=1 (local.get $d) (i16x8.shr_s (i16x8.mul (i8x16.swizzle (local.get $x) (local.get $m2)) (local.get $scale)) (i32.const 12)))
        (v128.store offset=48 align=1 (local.get $d) (i16x8.shr_s (i16x8.mul (i8x16.swizzle (local.get $x) (local.get $m3)) (local.get $scale)) (i32.const 12)))
        (local.set $s (i32.add (local.get $s) (i32.const 16)))
        (local.set $d (i32.add (local.get $d) (i32.const 64)))
        (local.set $g (i32.add (local.get $g) (i32.const 1)))
        (br_if $group (i32.lt_u (local.get $g) (local.get $groups))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $row (i32.lt_u (local.get $i) (i32.const 8)))))

  ;; directFits(base, stride, chunks): 1 when every one of widenDirect's 8 rows, 16 bytes a
  ;; load (4 chunks), lies inside the scratchpad without wrapping, else 0.
  (func $directFits (param $base i32) (param $stride i32) (param $chunks i32) (result i32)
    (local $i i32) (local $bytes i32)
    (local.set $bytes (i32.shl (i32.shr_u (i32.add (local.get $chunks) (i32.const 3)) (i32.const 2)) (i32.const 4)))
    (loop $row
      (if (i32.gt_u
            (i32.add (i32.and (i32.add (local.get $base) (i32.mul (local.get $i) (local.get $stride))) (i32.const 0xfffc)) (local.get $bytes))
            (i32.const 0x10000))
        (then (return (i32.const 0))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $row (i32.lt_u (local.get $i) (i32.const 8))))
    (i32.const 1))

  ;; seedrq32(acc, m0, n, out): seedrq for K <= 4096 in int32, four lanes a vector: then
  ;; |acc| <= 64*4096 = 2^18 and m0 < 2^12, so acc*m0 + 2^(n-1) stays below 2^31 and the
  ;; arithmetic shift by n is the floor of seedrq's exact product times 2^-n; the same outputs.
  (func $seedrq32 (param $acc i32) (param $m0 i32) (param $n i32) (param $out i32)
    (local $i i32) (local $m v128) (local $h v128) (local $q0 v128) (local $q1 v128) (local $x v128)
    (local.set $m (i32x4.splat (local.get $m0)))
    (if (local.get $n)
      (then (local.set $h (i32x4.splat (i32.shl (i32.const 1) (i32.sub (local.get $n) (i32.const 1)))))))
    (loop $row
      (local.set $q0 (i32x4.max_s (i32x4.min_s
        (i32x4.shr_s (i32x4.add (i32x4.mul (v128.load align=4 (local.get $acc)) (local.get $m)) (local.get $h)) (local.get $n))
        (v128.const i32x4 7 7 7 7)) (v128.const i32x4 -8 -8 -8 -8)))
      (local.set $q1 (i32x4.max_s (i32x4.min_s
        (i32x4.shr_s (i32x4.add (i32x4.mul (v128.load offset=16 align=4 (local.get $acc)) (local.get $m)) (local.get $h)) (local.get $n))
        (v128.const i32x4 7 7 7 7)) (v128.const i32x4 -8 -8 -8 -8)))
      ;; the eight q as int8, lanes 0..7
      (local.set $x (i8x16.narrow_i16x8_s (i16x8.narrow_i32x4_s (local.get $q0) (local.get $q1)) (v128.const i32x4 0 0 0 0)))
      (v128.store64_lane offset=32 align=1 0 (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 3))) (local.get $x))
      ;; nibbles: each 16-bit lane's low byte q(2k) | q(2k+1) << 4, then the four low bytes
      (local.set $x (v128.and (local.get $x) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15)))
      (local.set $x (v128.or (local.get $x) (i16x8.shr_u (local.get $x) (i32.const 4))))
      (i32.store (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 2)))
        (i32x4.extract_lane 0 (i8x16.shuffle 0 2 4 6 0 0 0 0 0 0 0 0 0 0 0 0 (local.get $x) (local.get $x))))
      (local.set $acc (i32.add (local.get $acc) (i32.const 32)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $row (i32.lt_u (local.get $i) (i32.const 8)))))

  ;; copyrows(dst, src, rows, rowWords, dstStride, srcStride): `rows` rows of `rowWords` words,
  ;; row r from src + r*srcStride to dst + r*dstStride (byte addresses and strides, in order: a
  ;; later row overwrites an earlier one where they overlap): the seed DMA's fill of whole
  ;; aligned words from its SRAM into the scratchpad, both in this memory.
  (func (export "copyrows") (param $dst i32) (param $src i32) (param $rows i32) (param $rowWords i32)
        (param $dstStride i32) (param $srcStride i32)
    (local $r i32) (local $w i32) (local $end i32)
    (if (i32.eqz (local.get $rows)) (then (return)))
    (if (i32.eq (local.get $rowWords) (i32.const 1))
      (then
        ;; Four rows a pass while four are left (the loop's overhead is most of a word's cost),
        ;; then one a pass: every word loaded and stored in row order, as one a pass.
        (local.set $end (i32.and (local.get $rows) (i32.const -4)))
        (block $four_done
          (loop $four
            (br_if $four_done (i32.ge_u (local.get $r) (local.get $end)))
            (i32.store (local.get $dst) (i32.load (local.get $src)))
            (local.set $dst (i32.add (local.get $dst) (local.get $dstStride)))
            (local.set $src (i32.add (local.get $src) (local.get $srcStride)))
            (i32.store (local.get $dst) (i32.load (local.get $src)))
            (local.set $dst (i32.add (local.get $dst) (local.get $dstStride)))
            (local.set $src (i32.add (local.get $src) (local.get $srcStride)))
            (i32.store (local.get $dst) (i32.load (local.get $src)))
            (local.set $dst (i32.add (local.get $dst) (local.get $dstStride)))
            (local.set $src (i32.add (local.get $src) (local.get $srcStride)))
            (i32.store (local.get $dst) (i32.load (local.get $src)))
            (local.set $dst (i32.add (local.get $dst) (local.get $dstStride)))
            (local.set $src (i32.add (local.get $src) (local.get $srcStride)))
            (local.set $r (i32.add (local.get $r) (i32.const 4)))
            (br $four)))
        (block $one_done
          (loop $one
            (br_if $one_done (i32.ge_u (local.get $r) (local.get $rows)))
            (i32.store (local.get $dst) (i32.load (local.get $src)))
            (local.set $dst (i32.add (local.get $dst) (local.get $dstStride)))
            (local.set $src (i32.add (local.get $src) (local.get $srcStride)))
            (local.set $r (i32.add (local.get $r) (i32.const 1)))
            (br $one)))
        (return)))
    (local.set $end (i32.shl (local.get $rowWords) (i32.const 2)))
    (loop $row
      (local.set $w (i32.const 0))
      (loop $word
        (i32.store (i32.add (local.get $dst) (local.get $w)) (i32.load (i32.add (local.get $src) (local.get $w))))
        (local.set $w (i32.add (local.get $w) (i32.const 4)))
        (br_if $word (i32.lt_u (local.get $w) (local.get $end))))
      (local.set $dst (i32.add (local.get $dst) (local.get $dstStride)))
      (local.set $src (i32.add (local.get $src) (local.get $srcStride)))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br_if $row (i32.lt_u (local.get $r) (local.get $rows)))))

    ;; seedgather(spad, abase, astride, chunks, bbase, bstride, breads, transposed, aw, bw):
  ;; the words an MXU command's issue phase fetches from the 64 KiB scratchpad at spad,
  ;; in fetch order: A's word c*8+i from row i (abase + i*astride), chunk c (the word
  ;; index wrapping within the scratchpad); B's the same when transposed, else word k
  ;; from bbase + k*bstride (16-bit byte addresses), breads of them.
  (func $seedgather (param $spad i32) (param $abase i32) (param $astride i32) (param $chunks i32)
        (param $bbase i32) (param $bstride i32) (param $breads i32) (param $transposed i32) (param $aw i32) (param $bw i32)
    (local $i i32) (local $c i32) (local $row i32) (local $k i32)
    (if (local.get $chunks)
      (then
        (loop $arow
          (local.set $row (i32.shr_u (i32.and (i32.add (local.get $abase) (i32.mul (local.get $i) (local.get $astride))) (i32.const 0xffff)) (i32.const 2)))
          (local.set $c (i32.const 0))
          (loop $achunk
            (i32.store (i32.add (local.get $aw) (i32.shl (i32.add (i32.shl (local.get $c) (i32.const 3)) (local.get $i)) (i32.const 2)))
              (i32.load (i32.add (local.get $spad) (i32.shl (i32.and (i32.add (local.get $row) (local.get $c)) (i32.const 0x3fff)) (i32.const 2)))))
            (local.set $c (i32.add (local.get $c) (i32.const 1)))
            (br_if $achunk (i32.lt_u (local.get $c) (local.get $chunks))))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br_if $arow (i32.lt_u (local.get $i) (i32.const 8))))))
    (if (local.get $transposed)
      (then
        (if (local.get $chunks)
          (then
            (local.set $i (i32.const 0))
            (loop $brow
              (local.set $row (i32.shr_u (i32.and (i32.add (local.get $bbase) (i32.mul (local.get $i) (local.get $bstride))) (i32.const 0xffff)) (i32.const 2)))
              (local.set $c (i32.const 0))
              (loop $bchunk
                (i32.store (i32.add (local.get $bw) (i32.shl (i32.add (i32.shl (local.get $c) (i32.const 3)) (local.get $i)) (i32.const 2)))
                  (i32.load (i32.add (local.get $spad) (i32.shl (i32.and (i32.add (local.get $row) (local.get $c)) (i32.const 0x3fff)) (i32.const 2)))))
                (local.set $c (i32.add (local.get $c) (i32.const 1)))
                (br_if $bchunk (i32.lt_u (local.get $c) (local.get $chunks))))
              (local.set $i (i32.add (local.get $i) (i32.const 1)))
              (br_if $brow (i32.lt_u (local.get $i) (i32.const 8)))))))
      (else
        (if (local.get $breads)
          (then
            (local.set $row (local.get $bbase))
            (loop $bword
              (i32.store (i32.add (local.get $bw) (i32.shl (local.get $k) (i32.const 2)))
                (i32.load (i32.add (local.get $spad) (i32.and (local.get $row) (i32.const 0xfffc)))))
              (local.set $row (i32.add (local.get $row) (local.get $bstride)))
              (local.set $k (i32.add (local.get $k) (i32.const 1)))
              (br_if $bword (i32.lt_u (local.get $k) (local.get $breads)))))))))

;; seedmmspad(spad, abase, astride, bbase, bstride, len, transposed, aw, bw, a16, bt16, pitch, acc, m0, n, out):
  ;; one MXU command from the scratchpad at spad (K = len <= 4096): the 64 sums at acc, their
  ;; requant at out (seedrq32). Its operand words are read in place (widenDirect, and a plain
  ;; B's words, `bstride` 4, as mmPairs' rows) when K is a multiple of 8 and no row wraps or
  ;; leaves the scratchpad: returns 0, aw and bw untouched. Else they are gathered to aw and bw
  ;; as its issue phase fetches them (seedgather; non-transposed, B's words from len to the next
  ;; multiple of 8 zeroed) and multiplied there (seedmm): returns 1.
  (func $seedmmspad (export "seedmmspad") (param $spad i32) (param $abase i32) (param $astride i32) (param $bbase i32) (param $bstride i32)
        (param $len i32) (param $transposed i32) (param $aw i32) (param $bw i32) (param $a16 i32) (param $bt16 i32)
        (param $pitch i32) (param $acc i32) (param $m0 i32) (param $n i32) (param $out i32) (result i32)
    (local $chunks i32) (local $k i32) (local $i i32)
    (local.set $chunks (i32.shr_u (i32.add (local.get $len) (i32.const 7)) (i32.const 3)))
    (if (i32.and
          (i32.and (i32.eqz (i32.and (local.get $len) (i32.const 7))) (i32.ne (local.get $len) (i32.const 0)))
          (call $directFits (local.get $abase) (local.get $astride) (local.get $chunks)))
      (then
        (if (local.get $transposed)
          (then
            (if (call $directFits (local.get $bbase) (local.get $bstride) (local.get $chunks))
              (then
                (call $widenDirect (local.get $spad) (local.get $abase) (local.get $astride) (local.get $chunks) (local.get $a16) (local.get $pitch))
                (call $widenDirect (local.get $spad) (local.get $bbase) (local.get $bstride) (local.get $chunks) (local.get $bt16) (local.get $pitch))
                (loop $arow
                  (call $matvec
                    (i32.add (local.get $a16) (i32.mul (local.get $i) (local.get $pitch)))
                    (local.get $len) (local.get $bt16) (i32.const 8)
                    (i32.add (local.get $acc) (i32.shl (local.get $i) (i32.const 5)))
                    (local.get $pitch))
                  (local.set $i (i32.add (local.get $i) (i32.const 1)))
                  (br_if $arow (i32.lt_u (local.get $i) (i32.const 8))))
                (call $seedrq32 (local.get $acc) (local.get $m0) (local.get $n) (local.get $out))
                (return (i32.const 0)))))
          (else
            (if (i32.and (i32.eq (local.get $bstride) (i32.const 4))
                  (i32.le_u (i32.add (i32.and (local.get $bbase) (i32.const 0xfffc)) (i32.shl (local.get $len) (i32.const 2))) (i32.const 0x10000)))
              (then
                (call $widenDirect (local.get $spad) (local.get $abase) (local.get $astride) (local.get $chunks) (local.get $a16) (local.get $pitch))
                (call $mmPairs (local.get $a16) (local.get $pitch)
                  (i32.add (local.get $spad) (i32.and (local.get $bbase) (i32.const 0xfffc)))
                  (local.get $len) (local.get $acc) (local.get $bt16))
                (call $seedrq32 (local.get $acc) (local.get $m0) (local.get $n) (local.get $out))
                (return (i32.const 0))))))))
    (call $seedgather (local.get $spad) (local.get $abase) (local.get $astride) (local.get $chunks)
      (local.get $bbase) (local.get $bstride)
      (select (i32.shl (local.get $chunks) (i32.const 3)) (local.get $len) (local.get $transposed))
      (local.get $transposed) (local.get $aw) (local.get $bw))
    (if (i32.eqz (local.get $transposed))
      (then
        (local.set $k (local.get $len))
        (block $z_done
          (loop $z
            (br_if $z_done (i32.ge_u (local.get $k) (i32.shl (local.get $chunks) (i32.const 3))))
            (i32.store (i32.add (local.get $bw) (i32.shl (local.get $k) (i32.const 2))) (i32.const 0))
            (local.set $k (i32.add (local.get $k) (i32.const 1)))
            (br $z)))))
    (call $seedmm (local.get $aw) (local.get $bw) (local.get $len) (local.get $transposed)
      (local.get $a16) (local.get $bt16) (local.get $pitch) (local.get $acc))
    (call $seedrq32 (local.get $acc) (local.get $m0) (local.get $n) (local.get $out))
    (i32.const 1))

  ;; seedmmat(args): seedmmspad with its 16 arguments as i32 at args (in its order), its result: a call
  ;; with one argument costs little even before the engine has compiled a wrapper for it.
  (func (export "seedmmat") (param $a i32) (result i32)
    (call $seedmmspad
      (i32.load offset=0 (local.get $a)) (i32.load offset=4 (local.get $a)) (i32.load offset=8 (local.get $a))
      (i32.load offset=12 (local.get $a)) (i32.load offset=16 (local.get $a)) (i32.load offset=20 (local.get $a))
      (i32.load offset=24 (local.get $a)) (i32.load offset=28 (local.get $a)) (i32.load offset=32 (local.get $a))
      (i32.load offset=36 (local.get $a)) (i32.load offset=40 (local.get $a)) (i32.load offset=44 (local.get $a))
      (i32.load offset=48 (local.get $a)) (i32.load offset=52 (local.get $a)) (i32.load offset=56 (local.get $a))
      (i32.load offset=60 (local.get $a))))
;; vputables(t0, t1, t2, t3, t4, t5, t6, t7): vpuew's two lookup vectors, four little-endian
  ;; int32 lanes each, kept in globals (set once for a run of commands with the same op and scale).
  (func (export "vputables") (param $t0 i32) (param $t1 i32) (param $t2 i32) (param $t3 i32)
        (param $t4 i32) (param $t5 i32) (param $t6 i32) (param $t7 i32)
    (global.set $vpuT0 (i32x4.replace_lane 3 (i32x4.replace_lane 2 (i32x4.replace_lane 1
      (i32x4.splat (local.get $t0)) (local.get $t1)) (local.get $t2)) (local.get $t3)))
    (global.set $vpuT1 (i32x4.replace_lane 3 (i32x4.replace_lane 2 (i32x4.replace_lane 1
      (i32x4.splat (local.get $t4)) (local.get $t5)) (local.get $t6)) (local.get $t7))))

  ;; vpuew(s0, s1, d, vectors, binary): `vectors` times four words of eight int4 lanes, from s0
  ;; (and s1, binary) to d (byte addresses in this memory, none of the ranges wrapping its 64 KiB
  ;; scratchpad), a vector of four words loaded, then stored, in address order: equal to the
  ;; seed VPU's word-by-word order (each word written before the next is read) unless d is one to
  ;; three words above a source, which the caller leaves to that order. Unary: a lane's nibble u
  ;; looks its result up in T0 (the low nibble of a byte) and T1 (T0 shifted: the high one). Binary:
  ;; a lane's nibbles a and b, as (a ^ 8) + (b ^ 8) = sext(a) + sext(b) + 16 in 0..30, index the 32
  ;; results T0 ++ T1 (a swizzle index of 16 or more yields zero: the two lookups are or-ed).
  (func (export "vpuew") (param $s0 i32) (param $s1 i32) (param $d i32) (param $vectors i32) (param $binary i32)
    (local $t0 v128) (local $t1 v128) (local $a v128) (local $b v128) (local $lo v128) (local $hi v128) (local $end i32)
    (if (i32.eqz (local.get $vectors)) (then (return)))
    (local.set $t0 (global.get $vpuT0))
    (local.set $t1 (global.get $vpuT1))
    (local.set $end (i32.add (local.get $d) (i32.shl (local.get $vectors) (i32.const 4))))
    (if (local.get $binary)
      (then
        (loop $bin
          (local.set $a (v128.xor (v128.load align=4 (local.get $s0)) (v128.const i8x16 0x88 0x88 0x88 0x88 0x88 0x88 0x88 0x88 0x88 0x88 0x88 0x88 0x88 0x88 0x88 0x88)))
          (local.set $b (v128.xor (v128.load align=4 (local.get $s1)) (v128.const i8x16 0x88 0x88 0x88 0x88 0x88 0x88 0x88 0x88 0x88 0x88 0x88 0x88 0x88 0x88 0x88 0x88)))
          (local.set $lo (i8x16.add
            (v128.and (local.get $a) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))
            (v128.and (local.get $b) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))))
          (local.set $hi (i8x16.add (i8x16.shr_u (local.get $a) (i32.const 4)) (i8x16.shr_u (local.get $b) (i32.const 4))))
          (v128.store align=4 (local.get $d) (v128.or
            (v128.or (i8x16.swizzle (local.get $t0) (local.get $lo))
              (i8x16.swizzle (local.get $t1) (i8x16.sub (local.get $lo) (v128.const i8x16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16))))
            (i8x16.shl (v128.or (i8x16.swizzle (local.get $t0) (local.get $hi))
              (i8x16.swizzle (local.get $t1) (i8x16.sub (local.get $hi) (v128.const i8x16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16))))
              (i32.const 4))))
          (local.set $s0 (i32.add (local.get $s0) (i32.const 16)))
          (local.set $s1 (i32.add (local.get $s1) (i32.const 16)))
          (local.set $d (i32.add (local.get $d) (i32.const 16)))
          (br_if $bin (i32.lt_u (local.get $d) (local.get $end)))))
      (else
        (loop $un
          (local.set $a (v128.load align=4 (local.get $s0)))
          (v128.store align=4 (local.get $d) (v128.or
            (i8x16.swizzle (local.get $t0) (v128.and (local.get $a) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15)))
            (i8x16.swizzle (local.get $t1) (i8x16.shr_u (local.get $a) (i32.const 4)))))
          (local.set $s0 (i32.add (local.get $s0) (i32.const 16)))
          (local.set $d (i32.add (local.get $d) (i32.const 16)))
          (br_if $un (i32.lt_u (local.get $d) (local.get $end)))))))
)

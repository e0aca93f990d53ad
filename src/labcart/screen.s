; screen.s -- whole-screen drawing with rendering off, and VRAM buffer helpers

; turn rendering off now (main loop context)
screen_off:
    lda #0
    sta mask_sh
    sta $2001
    rts

; rendering back on at the next NMI
screen_on:
    lda #$1E
    sta mask_sh
    rts

; clear nametable 0 (tiles and attributes) and the shadows
clear_screen:
    lda $2002
    lda #$20
    sta $2006
    lda #$00
    sta $2006
    ldx #0
    ldy #4
@l:
    sta $2007
    inx
    bne @l
    dey
    bne @l
    ldx #0
@s:
    sta SHADOW,x
    inx
    bne @s
    rts

; write ATTRSH to the attribute table (rendering off)
flush_attr:
    lda $2002
    lda #$23
    sta $2006
    lda #$C0
    sta $2006
    ldx #0
@l:
    lda ATTRSH,x
    sta $2007
    inx
    cpx #64
    bne @l
    rts

; fetch next byte of the script at ptr2
script_byte:
    ldy #0
    lda (ptr2),y
    inc ptr2
    bne :+
    inc ptr2+1
:
    cmp #0
    rts

; draw a script (rendering off): repeated [hi, lo, chars..., $FF], ends with hi = 0
draw_script:
    lda $2002
@str:
    jsr script_byte
    beq @end
    sta $2006
    jsr script_byte
    sta $2006
@ch:
    jsr script_byte
    cmp #$FF
    beq @str
    sta $2007
    jmp @ch
@end:
    rts

; draw appearance A as a 16x16 cell at nametable address fill_hi/fill_lo (rendering off)
; (attributes are set separately with attr_set)
cell_direct:
    jsr app_tiles
    lda $2002
    lda fill_hi
    sta $2006
    lda fill_lo
    sta $2006
    lda tmp12
    sta $2007
    lda tmp13
    sta $2007
    lda fill_lo
    clc
    adc #32
    tax
    lda fill_hi
    adc #0
    sta $2006
    stx $2006
    lda tmp14
    sta $2007
    lda tmp15
    sta $2007
    rts

; tiles of appearance A -> tmp12..tmp15 (TL TR BL BR); keeps A in rc_app
app_tiles:
    sta rc_app
    tay
    lda app_tile,y
    beq @empty
    sta tmp12
    clc
    adc #1
    sta tmp13
    adc #1
    sta tmp14
    adc #1
    sta tmp15
    rts
@empty:
    sta tmp12
    sta tmp13
    sta tmp14
    sta tmp15
    rts

; attribute: set quadrant of metatile (tx = mt col 0..15, ty = mt row 0..14) to palette A.
; Updates ATTRSH; returns C=1 if the byte changed, index in Y, value in A.
attr_set:
    and #3
    sta tmp0
    lda ty
    and #1
    asl a
    sta tmp1
    lda tx
    and #1
    ora tmp1              ; quadrant 0..3
    asl a
    asl a
    ora tmp0              ; quadrant*4 + pal
    tay
    lda quad_val,y
    sta tmp0
    lda quad_mask,y
    sta tmp1
    lda ty
    lsr a
    asl a
    asl a
    asl a
    sta tmp7
    lda tx
    lsr a
    ora tmp7
    tay                   ; attribute index
    lda ATTRSH,y
    and tmp1
    ora tmp0
    cmp ATTRSH,y
    beq @same
    sta ATTRSH,y
    sec
    rts
@same:
    clc
    rts

quad_val:
    .byte $00,$01,$02,$03, $00,$04,$08,$0C, $00,$10,$20,$30, $00,$40,$80,$C0
quad_mask:
    .repeat 4
    .byte $FC
    .endrepeat
    .repeat 4
    .byte $F3
    .endrepeat
    .repeat 4
    .byte $CF
    .endrepeat
    .repeat 4
    .byte $3F
    .endrepeat

; ---------------------------------------------------------------- VRAM buffer
; start a run of A bytes at fill_hi/fill_lo. Clobbers Y.
buf_run:
    ldy bufpos
    sta VBUF,y
    lda fill_hi
    sta VBUF+1,y
    lda fill_lo
    sta VBUF+2,y
    iny
    iny
    iny
    sty bufpos
    rts

; append A. Clobbers Y.
buf_byte:
    ldy bufpos
    sta VBUF,y
    iny
    sty bufpos
    rts

; queue the attribute byte Y (value A) of ATTRSH. Clobbers Y.
buf_attr:
    pha
    tya
    ora #$C0
    sta fill_lo
    lda #$23
    sta fill_hi
    lda #1
    jsr buf_run
    pla
    jmp buf_byte

; queue A chars from ptr2 at fill_hi/fill_lo
buf_str:
    sta tmp7
    jsr buf_run
    ldy #0
@l:
    lda (ptr2),y
    sty tmp1
    jsr buf_byte
    ldy tmp1
    iny
    cpy tmp7
    bne @l
    rts

; ---------------------------------------------------------------- appearance tables
; appearance: 0 empty, 1-6 colours, 7 nuisance, 8 Big Puyo, 9 Carbuncle
app_tile:
    .byte $00, $10,$14, $10,$14, $10,$14, $18, $14, $1C
app_pal:
    .byte 0, 0,0, 1,1, 2,2, 3, 3, 1

code2app:
    .repeat 64, I
    .if I >= COL1 && I < COL1+6
    .byte I - COL1 + 1
    .elseif I = NUIS
    .byte 7
    .elseif I = BIG
    .byte 8
    .elseif I = CARB
    .byte 9
    .else
    .byte 0
    .endif
    .endrepeat

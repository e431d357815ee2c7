import os, glob, numpy as np
from PIL import Image, ImageDraw, ImageFont
D=os.path.expanduser('~/.cache/companion/web-fonts')
fs=sorted(glob.glob(D+'/*.woff'))
txt='CSPAMJN cspamjn 12345'
rows=[]
for i,f in enumerate(fs):
    try:
        ft=ImageFont.truetype(f,34)
    except Exception as e:
        print('fail',f,e); continue
    im=Image.new('L',(900,48),255); d=ImageDraw.Draw(im)
    d.text((5,2),'%d '%i,fill=0,font=ImageFont.load_default())
    d.text((40,2),os.path.basename(f)[:-5][:14],fill=0)
    d.text((170,2),txt,fill=0,font=ft)
    rows.append(np.array(im))
for j in range(0,len(rows),32):
    Image.fromarray(np.vstack(rows[j:j+32])).save('tmp/sheet%d.png'%(j//32))

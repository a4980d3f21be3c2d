
d
	gaudi-jobhpu%
worker
habana.ai/gaudihl0hl1+
sidecar 
huawei.com/Ascend910davinci0